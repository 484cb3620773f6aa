// The items list reads one range of the (company_id, id) index at any depth, even where the planner's statistics
// invite a primary-key walk: a table where one merchant owns a large share of the rows, all at the start of the id
// space, and a last page (fewer rows left than asked). The queries planned are the items alone (`list`, what the
// bench's plain read sends) and the page with its modifiers (`listWithModifiers`, what the DataService sends), from
// createItemQueries, in a region schema of its own made by the region migrations (the shared test database's regions
// are never assumed to hold any particular data), its triggers included: a page's modifiers are on its items' rows.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createItemQueries } from "../../src/data/queries/item-queries.js";
import { listedModifiers } from "../../src/data/queries/modifier-queries.js";
import { migrateRegionSchema } from "../../src/storage/migrate.js";
import { silentLogger } from "../../src/runtime/logger.js";
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
  await migrateRegionSchema(sql, schema, silentLogger);
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
    select indexname as name from pg_indexes
    where schemaname = ${schema} and tablename = 'items' and indexdef like '%(company_id, id)'`;
  // The items table's own: modifier_groups and modifiers have a (company_id, id) index too, and
  // pg_indexes lists them in no promised order (a real-services CI run once named modifier_groups' here).
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

Plan(
  "the page with its modifiers is the same one range of the index, the modifiers read from its items' rows",
  async () => {
    const { sql } = database();
    const [last] = await sql<
      Array<{ id: number }>
    >`select id from ${sql(`${schema}.items`)} where company_id = ${busy} order by id desc offset 3 limit 1`;
    const [first, second] = await sql<Array<{ id: number }>>`
    select id from ${sql(`${schema}.items`)} where company_id = ${busy} and id > ${last!.id} order by id limit 2`;
    // The second of the three items left has two groups (given in reverse position), the first of them two modifiers.
    const groups = await sql<Array<{ id: number; position: number }>>`
    insert into ${sql(`${schema}.modifier_groups`)} (company_id, item_id, name, min_selections, max_selections, position)
    values (${busy}, ${second!.id}, 'Extras', 0, 1, 1), (${busy}, ${second!.id}, 'Size', 1, 2, 0)
    returning id, position`;
    const size = groups.find((group) => group.position === 0)!.id;
    const extras = groups.find((group) => group.position === 1)!.id;
    await sql`
    insert into ${sql(`${schema}.modifiers`)} (company_id, group_id, name, price_minor, position)
    values (${busy}, ${size}, 'Large', 150, 1), (${busy}, ${size}, 'Small', 0, 0), (${busy}, ${extras}, 'Cheese', 90, 0)`;
    const query = createItemQueries(sql, schema).listWithModifiers(busy, last!.id, 11);
    const { string } = await query.describe();
    const [row] = await sql.unsafe<Array<{ "QUERY PLAN": Array<{ Plan: Record<string, unknown> }> }>>(
      `explain (format json) ${string}`,
      [busy, last!.id, 11],
    );
    const plan = nodes(row!["QUERY PLAN"][0]!.Plan);
    const itemScans = plan.filter((node) => node["Relation Name"] === "items");
    assert.equal(
      itemScans.map((node) => [node["Node Type"], String(node["Index Name"]).includes("company_id_id")]),
      [["Index Scan", true]],
    );
    // No sort (the index gives the order), and no subquery per item: the page reads nothing but its items' rows.
    assert.equal(
      plan.filter((node) => String(node["Node Type"]).includes("Sort") || node["Parent Relationship"] === "SubPlan"),
      [],
    );
    assert.equal(
      plan.filter((node) => node["Relation Name"] !== undefined).map((node) => node["Relation Name"]),
      ["items"],
    );
    const page = await createItemQueries(sql, schema).listWithModifiers(busy, last!.id, 11);
    assert.equal(
      page.map((item) => Number(item.id)),
      [first!.id, second!.id, Number(page[2]!.id)].map(Number),
    );
    assert.equal(
      listedModifiers(page).map((modifier) => [
        Number(modifier.item_id),
        modifier.group_name,
        modifier.min_selections,
        modifier.max_selections,
        modifier.modifier_name,
        Number(modifier.price_minor),
      ]),
      [
        [Number(second!.id), "Size", 1, 2, "Small", 0],
        [Number(second!.id), "Size", 1, 2, "Large", 150],
        [Number(second!.id), "Extras", 0, 1, "Cheese", 90],
      ],
    );
  },
);

Plan.run();
