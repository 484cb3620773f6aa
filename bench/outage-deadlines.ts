// `npm run bench:outages`: how long a call waits on a dependency that is down, against the bound that should end
// it. The fault tests (test/storage/postgres-outage, postgres-silent, key-value) assert the behaviour (the 503, the
// code, the bound configured); a ceiling on real time there failed on loaded machines and proved little on idle
// ones, so the times are measured here, on a PostgreSQL server and listeners of the bench's own:
//
// - PostgreSQL stopped (pg_ctl -m fast, then immediate): each of BENCH_ROUNDS rounds of a query on the pool, which
//   must fail within DATABASE_CONNECT_TIMEOUT_SECONDS plus the reconnect pause (at most 1 s), and not grow round
//   after round (postgres.js's own pause reached 20 s);
// - PostgreSQL silent (a TCP forwarder frozen under an open connection): a query, which the reply deadline
//   (DATABASE_QUERY_TIMEOUT_SECONDS plus 1 s) must end;
// - Redis on a closed port: a rate count and a read, failed at once without the offline queue; and PING on a Redis
//   that accepts and never answers, ended by its own bound.
//
// Each line prints the time (ms) of every round and the bound it is held to. Knobs: BENCH_ROUNDS (default 3),
// BENCH_QUERY_SECONDS (default 2, the silent case's query timeout), BENCH_ONLY (redis, stopped or silent: one case).
import { createServer, type Socket } from "node:net";
import { silentLogger } from "../src/runtime/logger.js";
import { createRedisStore } from "../src/storage/key-value.js";
import { openDatabase, type Database } from "../src/storage/postgres.js";
import { startPrivatePostgres } from "../test/support/private-postgres.js";
import { startTcpForwarder } from "../test/support/tcp-forwarder.js";

const rounds = Number(process.env["BENCH_ROUNDS"] ?? 3);
const querySeconds = Number(process.env["BENCH_QUERY_SECONDS"] ?? 2);
const connectSeconds = 2;

/** How long the bench waits for one call before it reports the call as hung. */
const giveUpMs = 30_000;

/** Milliseconds `call` took to settle (resolved or rejected), and how; a call past giveUpMs is reported hung. */
async function timed(call: () => Promise<unknown>): Promise<{ ms: number; outcome: string }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer after ${giveUpMs} ms`), giveUpMs);
  });
  const settled = call().then(
    (value: unknown) => `answered ${typeof value === "boolean" ? value : "a value"}`,
    (error: unknown) => `failed (${(error as { code?: string }).code ?? (error as Error).message})`,
  );
  const outcome = await Promise.race([settled, hung]);
  clearTimeout(timer);
  return { ms: performance.now() - started, outcome };
}

function report(what: string, runs: Array<{ ms: number; outcome: string }>, boundMs: number): void {
  const times = runs.map((run) => run.ms.toFixed(0).padStart(6)).join(" ");
  const outcomes = [...new Set(runs.map((run) => run.outcome))].join(", ");
  const worst = Math.max(...runs.map((run) => run.ms));
  console.log(`${what.padEnd(44)} ${times} ms   bound ${boundMs} ms${worst > boundMs ? "  OVER" : ""}   ${outcomes}`);
}

async function postgresStopped(): Promise<void> {
  const pg = await startPrivatePostgres();
  try {
    for (const mode of ["fast", "immediate"] as const) {
      const database = await openDatabase({
        url: pg.url,
        dataDir: ":memory:",
        logger: silentLogger,
        poolSize: 2,
        timeouts: { connectSeconds, querySeconds: 5 },
      });
      await database.sql`select 1`;
      await pg.stop(mode);
      const runs = [];
      for (let round = 0; round < rounds; round++) runs.push(await timed(() => database.sql`select 1`));
      report(`PostgreSQL stopped (-m ${mode}), ${rounds} rounds`, runs, connectSeconds * 1000 + 1000);
      await database.close();
      await pg.start();
    }
  } finally {
    await pg.destroy();
  }
}

async function postgresSilent(): Promise<void> {
  const pg = await startPrivatePostgres();
  const forwarder = await startTcpForwarder("127.0.0.1", { host: "127.0.0.1", port: pg.port });
  let database: Database | undefined;
  try {
    database = await openDatabase({
      url: `postgres://postgres@127.0.0.1:${forwarder.port}/postgres`,
      dataDir: ":memory:",
      logger: silentLogger,
      poolSize: 1,
      timeouts: { connectSeconds, querySeconds },
    });
    await database.sql`select 1`;
    forwarder.freeze();
    const runs = [];
    for (let round = 0; round < rounds; round++) runs.push(await timed(() => database!.sql`select 1`));
    // The first round meets the open connection's reply deadline; later ones a new connection's connect timeout.
    report(
      `PostgreSQL silent, ${rounds} rounds`,
      runs,
      Math.max(querySeconds * 1000 + 1000, connectSeconds * 1000 + 1000),
    );
  } finally {
    forwarder.thaw();
    await database?.close();
    await forwarder.close();
    await pg.destroy();
  }
}

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function redisDown(): Promise<void> {
  const closed = await createRedisStore({ url: `redis://127.0.0.1:${await closedPort()}`, logger: silentLogger });
  const counts = [];
  const reads = [];
  for (let round = 0; round < rounds; round++) {
    counts.push(await timed(() => closed.hit("w", Date.now() + 60_000)));
    reads.push(await timed(() => closed.get("k")));
  }
  report(`Redis closed port: a rate count, ${rounds} rounds`, counts, 1000);
  report(`Redis closed port: a read, ${rounds} rounds`, reads, 1000);
  await closed.close();

  const accepted: Socket[] = [];
  const silent = createServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const { port } = silent.address() as { port: number };
  const store = await createRedisStore({
    url: `redis://127.0.0.1:${port}`,
    logger: silentLogger,
    connectTimeoutMs: 100,
  });
  const pings = [];
  for (let round = 0; round < rounds; round++) pings.push(await timed(() => store.ping(200)));
  report(`Redis silent: PING bounded at 200 ms, ${rounds} rounds`, pings, 250);
  await store.close();
  for (const socket of accepted) socket.destroy();
  silent.close();
}

console.log(`each line: the time of every round (ms), the bound it is held to, and how the calls ended\n`);
const only = process.env["BENCH_ONLY"];
if (!only || only === "redis") await redisDown();
if (!only || only === "stopped") await postgresStopped();
if (!only || only === "silent") await postgresSilent();
