// A migrated embedded database to start from. A new PGlite data directory runs initdb inside WebAssembly: about 14 s
// of CPU, the largest part of starting the app in a test. So the first test process that needs one builds a template
// (initdb, then the control and all four regions' migrations) under the system's temp directory, and every embedded
// app of a test starts on a copy of it (`cp -a`, a fraction of a second): the same PGlite and the same schema, only
// without repeating initdb. The template is keyed by what shapes it (PGlite's and pg-boss's versions, the migrations,
// the delivery queue's setup, the regions), so a changed migration builds a new one; the app still runs its migrations on the copy, as on any start.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { regions } from "../../src/config/regions.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { systemClock } from "../../src/runtime/clock.js";
import { migrateControl, migrateRegion } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/postgres.js";
import { startDeliveryQueue } from "../../src/webhook/delivery-queue.js";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const templatesDir = join(tmpdir(), "partner-api-test-templates");
/** How long a process waits for another one building the same template before it builds its own. */
const buildWaitMs = 5 * 60_000;

/** Every file under `dir`, sorted, with its contents. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .sort();
}

/** What the template depends on: PGlite's version, the migrations and the code that applies them, the regions. */
function templateKey(): string {
  const hash = createHash("sha256");
  hash.update(JSON.parse(readFileSync(join(root, "node_modules/@electric-sql/pglite/package.json"), "utf8")).version);
  hash.update(JSON.parse(readFileSync(join(root, "node_modules/pg-boss/package.json"), "utf8")).version);
  hash.update(regions.join(","));
  for (const path of [
    ...filesUnder(join(root, "src/storage/migrations")),
    join(root, "src/storage/migrate.ts"),
    join(root, "src/webhook/delivery-queue.ts"),
  ]) {
    hash.update(path.slice(root.length)).update(readFileSync(path));
  }
  return hash.digest("hex").slice(0, 16);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Builds the template's `pg` directory under `dir`: initdb, then every migration the app runs on start, and the
 * delivery queue's pg-boss schema (its install is most of the queue's start: about 0.6 s of CPU per app).
 */
async function build(dir: string): Promise<void> {
  const database = await openDatabase({ dataDir: dir, logger: silentLogger });
  try {
    await migrateControl(database.sql, silentLogger);
    for (const region of regions) await migrateRegion(database.sql, region, silentLogger);
    const queue = await startDeliveryQueue({
      sql: database.sql,
      embedded: true,
      logger: silentLogger,
      clock: systemClock,
    });
    await queue.stop();
  } finally {
    await database.close();
  }
}

let ready: Promise<string> | undefined;

/**
 * The template's data directory (a PGlite `pg` directory, migrated), built once per machine and key. Processes that
 * want it at the same time wait for the one that builds it (a lock directory holding the builder's pid; a dead
 * builder's lock is taken over).
 */
export function embeddedTemplate(): Promise<string> {
  ready ??= (async () => {
    const key = templateKey();
    const done = join(templatesDir, key, "pg");
    const lock = join(templatesDir, `${key}.lock`);
    await mkdir(templatesDir, { recursive: true });
    const deadline = Date.now() + buildWaitMs;
    while (!existsSync(done)) {
      try {
        await mkdir(lock);
      } catch {
        const owner = Number(readFileSafely(join(lock, "pid")));
        if (owner && !alive(owner)) await rm(lock, { recursive: true, force: true });
        else if (Date.now() > deadline)
          throw new Error(
            `the embedded template ${key} is still being built by pid ${owner} after ${buildWaitMs / 1000} s`,
          );
        else await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      try {
        await writeFile(join(lock, "pid"), String(process.pid));
        if (existsSync(done)) break;
        const building = join(templatesDir, `${key}.building-${process.pid}`);
        await rm(building, { recursive: true, force: true });
        await build(building);
        // One rename makes the finished template appear whole: nobody copies a half-built one.
        await rename(building, join(templatesDir, key));
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
    }
    return done;
  })();
  ready.catch(() => (ready = undefined));
  return ready;
}

function readFileSafely(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/**
 * Puts a copy of the migrated template where the app keeps its embedded database (`<dataDir>/pg`), so its start
 * opens a database instead of creating one. Only for a `dataDir` that has no database yet.
 */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  const template = await embeddedTemplate();
  if (existsSync(join(dataDir, "pg"))) throw new Error(`${dataDir} already holds a database`);
  await mkdir(dataDir, { recursive: true });
  await run("cp", ["-a", template, join(dataDir, "pg")]);
}
