// The items list reads one range of the (company_id, id) index at any depth, even where the planner's statistics
// invite a primary-key walk: a table where one merchant owns a large share of the rows, all at the start of the id
// space, and a last page (fewer rows left than asked). The query planned is the one the DataService sends
// (createItemQueries), on a copy of a region's items table in a schema of its own (the shared test database's
// regions are never assumed to hold any particular data).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createItemQueries } from "../../src/data/queries/item-queries.js";
import { useTestDatabase } from "../support/storage.js";

const Plan = suite("data/item-keyset-plan");
const database = useTestDatabase(Plan);
const schema = `item_plan_${process.pid}_${Date.now().toString(36)}`;
const busy = 5_000_000;

/** The nodes of an EXPLAIN (FORMAT JSON) plan, depth first. */
function nodes(plan: Record<string, unknown>): Array<Record<string, unknown>> {
  const children = (plan["Plans"] as Array<Record<string, unknown>> | undefined) ?? [];
  return [plan, ...children.flatMap(nodes)];
}

Plan.before(async () => {
  const { sql } = database();
  await sql`create schema ${sql(schema)}`;
  await sql`create table ${sql(`${schema}.items`)} (like region_in.items including defaults including identity including constraints including indexes)`;
  // 2,000 items of the busy merchant first, then 30,000 of 300 others: the busy one is a tenth of the table.
  await sql`
    insert into ${sql(`${schema}.items`)} (company_id, name, code, price_minor, currency)
    select case when g <= 2000 then ${busy}::bigint else 6000000 + g % 300 end, 'item ' || g, 'code-' || g, g, 'INR'
    from generate_series(1, 32000) g`;
  await sql`analyze ${sql(`${schema}.items`)}`;
});

Plan.after(async () => {
  const { sql } = database();
  await sql`drop schema ${sql(schema)} cascade`;
});

Plan("a last page is one range of the (company_id, id) index, not a walk of the primary key", async () => {
  const { sql } = database();
  const [index] = await sql<Array<{ name: string }>>`
    select indexname as name from pg_indexes where schemaname = ${schema} and indexdef like '%(company_id, id)'`;
  assert.ok(index, "the copy has the (company_id, id) index");
  const [last] = await sql<
    Array<{ id: number }>
  >`select id from ${sql(`${schema}.items`)} where company_id = ${busy} order by id desc offset 3 limit 1`;
  // The statement the DataService sends (limit + 1 rows), planned with its parameters.
  const { string } = await createItemQueries(sql, schema).list(busy, last!.id, 11).describe();
  const [row] = await sql.unsafe<Array<{ "QUERY PLAN": Array<{ Plan: Record<string, unknown> }> }>>(
    `explain (format json) ${string}`,
    [busy, last!.id, 11],
  );
  const plan = nodes(row!["QUERY PLAN"][0]!.Plan);
  const scans = plan.filter((node) => String(node["Node Type"]).includes("Scan"));
  assert.equal(
    scans.map((node) => [node["Node Type"], node["Index Name"]]),
    [["Index Scan", index!.name]],
  );
  assert.not.ok(
    plan.some((node) => String(node["Node Type"]).includes("Sort")),
    "no sort: the index gives the order",
  );
  // And the page itself: the merchant's last three items.
  assert.is((await createItemQueries(sql, schema).list(busy, last!.id, 11)).length, 3);
});

Plan.run();
