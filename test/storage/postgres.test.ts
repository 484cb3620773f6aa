// Tests of the shared client settings on whichever database the tests run against: bigint as number,
// transactions through their own `sql`, the bounded pause between connection attempts.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { reconnectDelaySeconds } from "../../src/storage/postgres.js";
import { useTestDatabase } from "../support/storage.js";

const test = suite("storage/postgres");
const database = useTestDatabase(test);

test("the pause between connection attempts doubles from 50 ms and never passes one second (postgres.js's reached 20 s)", () => {
  for (let failures = 0; failures <= 40; failures++) {
    const ceiling = Math.min(0.05 * 2 ** failures, 1);
    for (let draw = 0; draw < 20; draw++) {
      const delay = reconnectDelaySeconds(failures);
      assert.ok(delay >= ceiling / 2 && delay <= ceiling, `${failures} failures: ${delay}`);
    }
  }
  assert.ok(reconnectDelaySeconds(1_000) <= 1);
});

test("bigint columns and arrays come back as numbers", async () => {
  const { sql } = database();
  const [row] =
    await sql`select ${2 ** 40}::bigint as id, ${[1, 2]}::bigint[] as ids, count(*) as count from (values (1)) v`;
  assert.equal(row, { id: 2 ** 40, ids: [1, 2], count: 1 });
});

test("a bigint beyond 2^53 is refused instead of rounded, and the connection stays usable", async () => {
  const { sql } = database();
  const error = await sql`select 9007199254740993::bigint as id`.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.instance(error, RangeError);
  assert.is((error as Error).message, "bigint 9007199254740993 does not fit a JavaScript number");
  const [row] = await sql`select 1 as one`;
  assert.equal(row, { one: 1 });
});

test("a transaction commits through its own sql and rolls back on error", async () => {
  const { sql } = database();
  const name = `tx-${process.pid}-${Date.now()}-${Math.random()}`;
  const [org] = await sql.begin(
    async (tx) => tx`insert into control.organizations (name) values (${name}) returning name`,
  );
  assert.equal(org, { name });
  const failed = await sql
    .begin(async (tx) => {
      await tx`insert into control.organizations (name) values (${name + "-rolled-back"})`;
      throw new Error("abort");
    })
    .catch((caught: Error) => caught.message);
  assert.is(failed, "abort");
  const rows = await sql`select name from control.organizations where name like ${name + "%"} order by name`;
  assert.equal(
    rows.map((row) => row.name),
    [name],
  );
});

test("named constraints are what query code will match on", async () => {
  const { sql } = database();
  const rows = await sql`
    select conname from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where n.nspname = 'control' and conname in ('apps__organization_id__fkey', 'apps__product__check', 'merchants__region__check')
    order by conname`;
  assert.equal(
    rows.map((row) => row.conname),
    ["apps__organization_id__fkey", "apps__product__check", "merchants__region__check"],
  );
  const error = await sql`insert into control.merchants (name, region) values ('x', 'eu')`.catch((caught) => caught);
  assert.is(error.constraint_name, "merchants__region__check");
});

test.run();
