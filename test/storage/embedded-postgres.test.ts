// Tests of the embedded default: PGlite on disk survives a restart, migrations then apply nothing, and the
// client behaves like the real-server one (numbers for bigint, notices kept out of stdout).
import { readdirSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedEmbeddedDatabase } from "../support/embedded-template.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createLogger } from "../../src/runtime/logger.js";
import { migrateControl, migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";

const test = suite("storage/embedded-postgres");

/** The names of the migrations shipped for `schema`, in the order they apply. */
const bundledMigrations = (schema: "control" | "region"): string[] =>
  readdirSync(new URL(`../../src/storage/migrations/${schema}/`, import.meta.url))
    .filter((file) => file.endsWith(".sql"))
    .map((file) => file.slice(0, -4))
    .sort();

test("open, migrate, write, close, reopen: the data is there and migrations apply nothing", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "pa-embedded-"));
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  // Closed on a failure too: an open PGlite keeps the test process alive.
  const opened: { close(): Promise<void> }[] = [];
  try {
    const first = await openDatabase({ dataDir, logger });
    assert.is(first.embedded, true);
    opened.push(first);
    assert.equal(await migrateControl(first.sql, logger), bundledMigrations("control"));
    assert.equal(await migrateRegion(first.sql, "uk", logger), bundledMigrations("region"));
    const [org] = await first.sql`insert into control.organizations (name) values ('Acme') returning id, name`;
    await first.sql`insert into region_uk.stores (company_id, name) values (${900_000_001}, 'High Street')`;
    await first.close();
    assert.ok((await stat(join(dataDir, "pg"))).isDirectory());

    const second = await openDatabase({ dataDir, logger });
    opened.push(second);
    assert.equal(await migrateControl(second.sql, logger), []);
    assert.equal(await migrateRegion(second.sql, "uk", logger), []);
    const organizations = await second.sql`select id, name from control.organizations`;
    assert.equal([...organizations], [org]);
    const stores = await second.sql`select company_id, name from region_uk.stores`;
    assert.equal([...stores], [{ company_id: 900_000_001, name: "High Street" }]);
    await second.close();

    const starting = lines.filter((line) => line.msg.startsWith("embedded PostgreSQL (PGlite) starting"));
    assert.equal(
      starting.map((line) => line.msg),
      [
        `embedded PostgreSQL (PGlite) starting under ${join(dataDir, "pg")}; this takes a few seconds`,
        `embedded PostgreSQL (PGlite) starting under ${join(dataDir, "pg")}; this takes a few seconds`,
      ],
    );
    // The second run's "already exists, skipping" notices went to the logger at debug level.
    assert.ok(lines.some((line) => line.level === "debug" && line.msg === "postgres notice"));
  } finally {
    await Promise.allSettled(opened.map((database) => database.close()));
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("readiness: a ping queued behind this process's own work is busy, not down; a closed database is down", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "pa-embedded-"));
  // A copy of the migrated template: readiness needs a database, not a new one (the test above keeps its initdb).
  await seedEmbeddedDatabase(dataDir);
  const database = await openDatabase({ dataDir, logger: createLogger({ level: "error" }) });
  try {
    assert.is(await database.ping(1000), true);
    // A transaction holds the one connection: the ping waits in line past its timeout, and still says ready.
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const transaction = database.sql.begin(async (tx) => {
      await tx`select 1`;
      await held;
    });
    assert.is(await database.ping(50), true);
    finish();
    await transaction;
    await database.close();
    assert.is(await database.ping(1000), false);
  } finally {
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test.run();
