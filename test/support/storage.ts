// How every test of the project gets a database and a key-value store: a real Postgres / Redis when
// TEST_DATABASE_URL / TEST_REDIS_URL are set, otherwise one embedded PGlite (on a copy of the migrated template)
// and the in-process store.
//
// uvu runs every test file in one process and never calls process.exit, so an open pool would keep it alive.
// Shared handles are therefore reference counted: a suite acquires in `before` and releases in `after`
// (`useTestDatabase(suite)` does both); when the count stays at zero for a moment the handle is closed. A later
// suite simply opens it again.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import type { Clock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { createMemoryStore, createRedisStore, type KeyValueStore } from "../../src/storage/key-value.js";
import { migrateControl, migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase, type Database } from "../../src/storage/postgres.js";
import { regions } from "../../src/config/regions.js";
import { seedEmbeddedDatabase } from "./embedded-template.js";

/** How long a released shared handle waits for the next suite before it closes. */
const closeDelayMs = 200;

/** A value opened on first use, shared while anyone holds it, closed shortly after the last release. */
interface SharedResource<T> {
  acquire(): Promise<T>;
  release(): void;
}

function createSharedResource<T>(open: () => Promise<T>, close: (value: T) => Promise<void>): SharedResource<T> {
  let value: Promise<T> | undefined;
  let holders = 0;
  let closeTimer: NodeJS.Timeout | undefined;
  return {
    acquire: () => {
      holders++;
      clearTimeout(closeTimer);
      value ??= open();
      return value;
    },
    release: () => {
      holders = Math.max(0, holders - 1);
      if (holders > 0 || !value) return;
      clearTimeout(closeTimer);
      closeTimer = setTimeout(() => {
        const closing = value;
        value = undefined;
        void closing?.then(close).catch(() => {});
      }, closeDelayMs);
    },
  };
}

/** The minimal part of a uvu suite we hook into. */
interface SuiteHooks {
  before(hook: () => unknown): void;
  after(hook: () => unknown): void;
}

/** A unique, valid Postgres identifier / Redis prefix for this test process. */
function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

/** The URL of `database` on the same server as `url`. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Creates an empty, uniquely named database on the TEST_DATABASE_URL server and returns its URL. */
async function createDatabaseOn(serverUrl: string): Promise<string> {
  const name = uniqueName("pa_test");
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`create database ${admin(name)}`;
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, name);
}

/** Drops a database made by `freshDatabaseUrl` (or the shared one), even with connections still open. */
export async function dropDatabase(url: string): Promise<void> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return;
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`drop database if exists ${admin(name)} with (force)`;
  } finally {
    await admin.end();
  }
}

/**
 * Opens a database, fully migrated: a fresh database on TEST_DATABASE_URL, or else an embedded PGlite started on a
 * copy of the migrated template in a temporary directory (embedded-template.ts: no initdb per process). The shared
 * one is this; a suite that needs a handle opened at a moment of its own (after it started tracing, say, which a
 * handle opened earlier by another file of its process would not see) opens its own and closes it.
 */
export async function openTestDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  const url = serverUrl ? await createDatabaseOn(serverUrl) : undefined;
  const dataDir = url ? ":memory:" : await mkdtemp(join(tmpdir(), "pa-test-db-"));
  if (!url) await seedEmbeddedDatabase(dataDir);
  const db = await openDatabase({ url, dataDir, logger: silentLogger, poolSize: 4 });
  await migrateControl(db.sql, silentLogger);
  for (const region of regions) await migrateRegion(db.sql, region, silentLogger);
  // The shared database is dropped (or its directory removed) when the handle closes: runs leave nothing behind.
  if (!url)
    return {
      ...db,
      close: async () => {
        await db.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  return {
    ...db,
    close: async () => {
      await db.close();
      await dropDatabase(url);
    },
  };
}

const sharedDatabase = createSharedResource(openTestDatabase, (db) => db.close());

/**
 * The database shared by this test process, migrated for control and all four regions. Never assume its
 * tables are empty: use unique names and ids. Pair with `releaseTestDatabase()`, or use `useTestDatabase`.
 */
export function getTestDatabase(): Promise<Database> {
  return sharedDatabase.acquire();
}

/** Gives back what `getTestDatabase()` handed out, so the process can exit after the last suite. */
export function releaseTestDatabase(): void {
  sharedDatabase.release();
}

/** Acquires the shared database in the suite's `before` and releases it in its `after`; call the getter in tests. */
export function useTestDatabase(suite: SuiteHooks): () => Database {
  let db: Database | undefined;
  suite.before(async () => {
    db = await getTestDatabase();
  });
  suite.after(() => releaseTestDatabase());
  return () => {
    if (!db) throw new Error("the test database is only available inside the suite's tests");
    return db;
  };
}

/**
 * A brand-new empty database on the TEST_DATABASE_URL server, for tests that need two separate pools or an
 * unmigrated schema; undefined in embedded mode. Drop it with `dropDatabase(url)` when done.
 */
export async function freshDatabaseUrl(): Promise<string | undefined> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  return serverUrl ? createDatabaseOn(serverUrl) : undefined;
}

/**
 * A key-value store for tests: Redis at TEST_REDIS_URL under a key prefix unique to this process (so parallel
 * runs do not collide), or the in-process store on `clock`. Both measure windows' lifetimes on `clock`; Redis
 * then counts them down in real time.
 * Close it when done (in the suite's `after`).
 */
export async function getTestKeyValueStore(clock: Clock): Promise<KeyValueStore> {
  const url = process.env.TEST_REDIS_URL;
  if (!url) return createMemoryStore({ clock });
  return createRedisStore({ url, logger: silentLogger, prefix: `${uniqueName("pa_test")}:`, clock });
}

/** A "shared" store (a stand-in for Redis) that throws while `down`, never answers while `hang`, counts otherwise. */
export function flakyStore(clock: Clock) {
  const inner = createMemoryStore({ clock });
  const state = { down: false, hang: false };
  const guard = async () => {
    if (state.hang) return new Promise<never>(() => {});
    if (state.down) throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
  };
  const store: KeyValueStore = {
    ...inner,
    shared: true,
    hit: async (key, expiresAtMs) => {
      await guard();
      return inner.hit(key, expiresAtMs);
    },
    get: async (key) => {
      await guard();
      return inner.get(key);
    },
    set: async (key, value, ttlMs) => {
      await guard();
      return inner.set(key, value, ttlMs);
    },
    setIfAbsent: async (key, value, ttlMs) => {
      await guard();
      return inner.setIfAbsent(key, value, ttlMs);
    },
    del: async (key) => {
      await guard();
      return inner.del(key);
    },
    run: async (script, keys, args) => {
      await guard();
      return inner.run(script, keys, args);
    },
    ping: async () => !state.down && !state.hang,
  };
  return { store, state };
}
