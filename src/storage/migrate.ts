// Forward-only, numbered SQL migrations, applied at start under an advisory lock so instances starting together
// do not race. The control set runs in schema `control`; the region set runs once per region schema.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type postgres from "postgres";
import type { Logger } from "../runtime/logger.js";
import type { Region } from "../config/regions.js";
import { controlSchema, regionSchema } from "./schemas.js";

/**
 * Key of the advisory lock every migrator takes first. Any constant works as long as nothing else in the
 * database uses it; this one spells "partner-api migrations" loosely (0x5041 = "PA") and is easy to grep.
 */
const migrationLockKey = 0x5041_0001;

/** A migration file name: four digits, an underscore, a snake_case name. */
const migrationFile = /^(\d{4}_[a-z0-9_]+)\.sql$/;

/** Raised when the database and the migration files disagree; the process must not start on it. */
export class MigrationError extends Error {
  override name = "MigrationError";
}

export interface MigrateOptions {
  /** Directory of the .sql files; tests point this at a temporary directory. Defaults to the bundled set. */
  directory?: URL | string;
}

/** Applies the control-plane migrations; returns the names it applied (empty when up to date). */
export function migrateControl(sql: postgres.Sql, logger: Logger, options: MigrateOptions = {}): Promise<string[]> {
  const directory = options.directory ?? new URL("./migrations/control/", import.meta.url);
  return migrateSchema(sql, { schema: controlSchema, directory, logger });
}

/** Applies the region migrations to one region's schema; returns the names it applied. */
export function migrateRegion(
  sql: postgres.Sql,
  region: Region,
  logger: Logger,
  options: MigrateOptions = {},
): Promise<string[]> {
  return migrateRegionSchema(sql, regionSchema(region), logger, options);
}

/** Applies the region migrations to `schema`, a region's or any other (a test's copy of a region); its names. */
export function migrateRegionSchema(
  sql: postgres.Sql,
  schema: string,
  logger: Logger,
  options: MigrateOptions = {},
): Promise<string[]> {
  const directory = options.directory ?? new URL("./migrations/region/", import.meta.url);
  return migrateSchema(sql, { schema, directory, logger });
}

interface Migration {
  name: string;
  text: string;
  checksum: string;
}

/**
 * Brings one schema up to date in one transaction: lock, ensure the bookkeeping table, check that applied
 * files were not edited, apply the missing ones in order with search_path set to the schema.
 */
export async function migrateSchema(
  sql: postgres.Sql,
  options: { schema: string; directory: URL | string; logger: Logger },
): Promise<string[]> {
  const { schema, logger } = options;
  const migrations = await readMigrations(options.directory);
  // Inside the transaction every query goes through `tx`: on PGlite a query on the outer pool would wait forever.
  const applied = await sql.begin(async (tx) => {
    // DATABASE_QUERY_TIMEOUT_SECONDS bounds a call's statements; a migration (or the wait for another instance's)
    // runs at start and may take as long as it takes.
    await tx`set local statement_timeout = 0`;
    await tx`select pg_advisory_xact_lock(${migrationLockKey})`;
    await tx`create schema if not exists ${tx(schema)}`;
    await tx`set local search_path to ${tx(schema)}`;
    await tx`
      create table if not exists schema_migrations (
        name text constraint schema_migrations__name__pkey primary key,
        checksum text not null,
        applied_at timestamptz not null default now()
      )`;
    const recorded = await tx<{ name: string; checksum: string }[]>`select name, checksum from schema_migrations`;
    const pending = pendingMigrations(
      schema,
      migrations,
      new Map(recorded.map((row) => [row.name, row.checksum])),
      logger,
    );
    for (const migration of pending) {
      await tx.unsafe(migration.text);
      await tx`insert into schema_migrations (name, checksum) values (${migration.name}, ${migration.checksum})`;
    }
    return pending.map((migration) => migration.name);
  });
  if (applied.length > 0) logger.info("migrations applied", { schema, applied });
  return applied;
}

/** The files not yet recorded, in order; throws when a recorded one was edited since. */
function pendingMigrations(
  schema: string,
  migrations: Migration[],
  recorded: Map<string, string>,
  logger: Logger,
): Migration[] {
  for (const migration of migrations) {
    const checksum = recorded.get(migration.name);
    if (checksum !== undefined && checksum !== migration.checksum) {
      throw new MigrationError(`migration ${migration.name} was edited after it was applied (schema ${schema})`);
    }
  }
  const known = new Set(migrations.map((migration) => migration.name));
  const unknown = [...recorded.keys()].filter((name) => !known.has(name));
  // A newer instance may have applied migrations this code does not know yet (rolling deploy): not fatal.
  if (unknown.length > 0) logger.warn("database has migrations this build does not know", { schema, unknown });
  return migrations.filter((migration) => !recorded.has(migration.name));
}

/** Reads the numbered .sql files of a directory, sorted by number. */
async function readMigrations(directory: URL | string): Promise<Migration[]> {
  const base = directoryUrl(directory);
  const migrations: Migration[] = [];
  for (const file of (await readdir(base)).sort()) {
    const name = migrationFile.exec(file)?.[1];
    if (!name) continue;
    const text = await readFile(new URL(file, base), "utf8");
    migrations.push({ name, text, checksum: createHash("sha256").update(text).digest("hex") });
  }
  assertUniqueNumbers(migrations);
  return migrations;
}

/** A directory as a file: URL ending in "/", so file names resolve inside it. */
function directoryUrl(directory: URL | string): URL {
  const url = typeof directory === "string" ? pathToFileURL(resolve(directory)) : new URL(directory.href);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

/** Two files with the same number would apply in an order that depends on their names; refuse that. */
function assertUniqueNumbers(migrations: Migration[]): void {
  const numbers = migrations.map((migration) => migration.name.slice(0, 4));
  const duplicate = numbers.find((number, index) => numbers.indexOf(number) !== index);
  if (duplicate) throw new MigrationError(`two migrations are numbered ${duplicate}`);
}
