// Tests of the migration runner: applied once, racing migrators, edited files refused, search_path per schema.
import { readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { skipTest, suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { silentLogger } from "../../src/runtime/logger.js";
import { MigrationError, migrateControl, migrateRegion, migrateSchema } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { regions } from "../../src/config/regions.js";
import { dropDatabase, freshDatabaseUrl, useTestDatabase } from "../support/storage.js";

const test = suite("storage/migrate");
/** The bundled migrations of `set`, by name, in order (the sets grow; the tests do not list them by hand). */
const bundled = (set: "control" | "region") =>
  readdirSync(new URL(`../../src/storage/migrations/${set}/`, import.meta.url))
    .filter((file) => file.endsWith(".sql"))
    .map((file) => file.slice(0, -4))
    .sort();
const controlMigrations = bundled("control");
const regionMigrations = bundled("region");
const database = useTestDatabase(test);

/** A temporary migrations directory holding `files`, and a schema name nobody else uses. */
async function scratch(files: Record<string, string>) {
  const directory = await mkdtemp(join(tmpdir(), "pa-migrations-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(directory, name), text);
  return { directory, schema: `mig_${randomBytes(4).toString("hex")}` };
}

test("the bundled sets are applied once: a second run applies none", async () => {
  const { sql } = database();
  assert.equal(await migrateControl(sql, silentLogger), []);
  for (const region of regions) assert.equal(await migrateRegion(sql, region, silentLogger), []);
  const control = await sql`select name from control.schema_migrations order by name`;
  assert.equal(
    control.map((row) => row.name),
    controlMigrations,
  );
  const uk = await sql`select name from region_uk.schema_migrations order by name`;
  assert.equal(
    uk.map((row) => row.name),
    regionMigrations,
  );
});

test("applies missing files in order, records them, and applies only new ones later", async () => {
  const { sql } = database();
  const { directory, schema } = await scratch({
    "0002_second.sql": "alter table things add column label text;",
    "0001_first.sql": "create table things (id int primary key);",
    "README.md": "not a migration",
  });
  try {
    assert.equal(await migrateSchema(sql, { schema, directory, logger: silentLogger }), ["0001_first", "0002_second"]);
    assert.equal(await migrateSchema(sql, { schema, directory, logger: silentLogger }), []);
    await writeFile(join(directory, "0003_third.sql"), "insert into things (id, label) values (1, 'one');");
    assert.equal(await migrateSchema(sql, { schema, directory, logger: silentLogger }), ["0003_third"]);
    // Unqualified names landed in the schema, not in public.
    const rows = await sql`select id, label from ${sql(schema + ".things")}`;
    assert.equal([...rows], [{ id: 1, label: "one" }]);
    const recorded =
      await sql`select name, length(checksum) as length from ${sql(schema + ".schema_migrations")} order by name`;
    assert.equal(
      recorded.map((row) => [row.name, row.length]),
      [
        ["0001_first", 64],
        ["0002_second", 64],
        ["0003_third", 64],
      ],
    );
  } finally {
    await rm(directory, { recursive: true });
  }
});

test("the same region set gives each region schema its own tables", async () => {
  const { sql } = database();
  const rows = await sql`
    select table_schema from information_schema.tables
    where table_name = 'items' and table_schema like 'region\\_%' order by table_schema`;
  assert.equal(
    rows.map((row) => row.table_schema),
    ["region_ae", "region_in", "region_uk", "region_us"],
  );
});

test("a migration edited after it was applied stops the start", async () => {
  const { sql } = database();
  const { directory, schema } = await scratch({ "0001_first.sql": "create table things (id int);" });
  try {
    await migrateSchema(sql, { schema, directory, logger: silentLogger });
    await writeFile(join(directory, "0001_first.sql"), "create table things (id bigint);");
    const error = await migrateSchema(sql, { schema, directory, logger: silentLogger }).catch((caught) => caught);
    assert.instance(error, MigrationError);
    assert.is(error.message, `migration 0001_first was edited after it was applied (schema ${schema})`);
  } finally {
    await rm(directory, { recursive: true });
  }
});

test("a failing migration leaves nothing behind, not even the earlier files of the same run", async () => {
  const { sql } = database();
  const { directory, schema } = await scratch({
    "0001_good.sql": "create table things (id int);",
    "0002_bad.sql": "create table broken (id no_such_type);",
  });
  try {
    const error = await migrateSchema(sql, { schema, directory, logger: silentLogger }).catch((caught) => caught);
    assert.match(String(error.message), /no_such_type/);
    const [row] =
      await sql`select to_regclass(${schema + ".things"})::text as things, to_regnamespace(${schema})::text as ns`;
    assert.equal(row, { things: null, ns: null });
  } finally {
    await rm(directory, { recursive: true });
  }
});

test("two migrators started together on the same database apply each file exactly once", async () => {
  const { sql } = database();
  const { directory, schema } = await scratch({
    "0001_first.sql": "create table things (id int);",
    "0002_second.sql": "create table others (id int);",
  });
  try {
    const runs = await Promise.all([
      migrateSchema(sql, { schema, directory, logger: silentLogger }),
      migrateSchema(sql, { schema, directory, logger: silentLogger }),
    ]);
    assert.equal(runs.flat().sort(), ["0001_first", "0002_second"]);
  } finally {
    await rm(directory, { recursive: true });
  }
});

test("two instances racing on separate pools migrate a fresh database exactly once (real Postgres only)", async () => {
  const url = await freshDatabaseUrl();
  if (!url) skipTest("TEST_DATABASE_URL is not set: embedded mode has one connection");
  const first = await openDatabase({ url, dataDir: ":memory:", logger: silentLogger, poolSize: 2 });
  const second = await openDatabase({ url, dataDir: ":memory:", logger: silentLogger, poolSize: 2 });
  try {
    const migrateAll = async (sql: typeof first.sql) => {
      const applied = [...(await migrateControl(sql, silentLogger)).map((name) => `control/${name}`)];
      for (const region of regions) {
        applied.push(...(await migrateRegion(sql, region, silentLogger)).map((name) => `${region}/${name}`));
      }
      return applied;
    };
    const [a, b] = await Promise.all([migrateAll(first.sql), migrateAll(second.sql)]);
    assert.equal(
      [...a, ...b].sort(),
      [
        ...["ae", "in", "uk", "us"].flatMap((region) => regionMigrations.map((name) => `${region}/${name}`)),
        ...controlMigrations.map((name) => `control/${name}`),
      ].sort(),
    );
    const [row] = await first.sql`select count(*)::int as count from control.schema_migrations`;
    assert.equal(row, { count: controlMigrations.length });
  } finally {
    await first.close();
    await second.close();
    await dropDatabase(url);
  }
});

test("a migration is not cut by DATABASE_QUERY_TIMEOUT_SECONDS: it runs at start, not on a call (real Postgres only)", async () => {
  const url = await freshDatabaseUrl();
  if (!url) skipTest("TEST_DATABASE_URL is not set: PGlite has no statement_timeout timer");
  const database = await openDatabase({
    url,
    dataDir: ":memory:",
    logger: silentLogger,
    poolSize: 2,
    timeouts: { connectSeconds: 2, querySeconds: 1 },
  });
  const { directory, schema } = await scratch({
    "0001_slow.sql": "select pg_sleep(1.5); create table things (id int);",
  });
  try {
    // The pool's statements are bounded: the same sleep outside a migration is cancelled (57014).
    const cancelled = await database.sql`select pg_sleep(1.5)`.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.is((cancelled as { code?: string }).code, "57014");
    assert.equal(await migrateSchema(database.sql, { schema, directory, logger: silentLogger }), ["0001_slow"]);
    const [row] = await database.sql`select to_regclass(${schema + ".things"})::text as things`;
    assert.equal(row, { things: `${schema}.things` });
  } finally {
    await rm(directory, { recursive: true });
    await database.close();
    await dropDatabase(url);
  }
});

test.run();
