// `npm run bench:request-log`: what the partner request log costs a partner call, in the same run, against the
// same work without it.
// - On the request path: the front hands each answered call to `record` (src/request-log/recorder.ts). Measured as
//   CPU time per call of a loop that builds the call's record and hands it over, against the same loop that builds
//   it and drops it (the front without a log), each over BENCH_CALLS calls, best of three rounds.
// - Off the request path: the flush, in the same process (its CPU is the process's, so a front pays it too, in
//   batches): CPU and wall time per call of writing BENCH_CALLS calls in batches of 1,000 (every REQUEST_LOG_FLUSH_MS
//   a front writes what it buffered), trims included, against the control database (DATABASE_URL, or embedded
//   PGlite as `npm start` runs).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequestRecorder, type PartnerCallRecord } from "../src/request-log/index.js";
import { systemClock } from "../src/runtime/clock.js";
import { silentLogger } from "../src/runtime/logger.js";
import { migrateControl } from "../src/storage/migrate.js";
import { openDatabase } from "../src/storage/postgres.js";
import { machine } from "./support/measure.js";

const calls = Number(process.env["BENCH_CALLS"] ?? 200_000);
const flushedCalls = Number(process.env["BENCH_FLUSHED_CALLS"] ?? 20_000);

/** A call as the front builds it: half successes, a 429 in ten, an error body on the refusals. */
function callOf(index: number): PartnerCallRecord {
  const status = index % 10 === 0 ? 429 : index % 2 === 0 ? 200 : 400;
  return {
    appId: `app_bench_${index % 20}`,
    environment: index % 3 === 0 ? "PRODUCTION" : "SANDBOX",
    at: systemClock.now(),
    method: "GET",
    path: "/v1/items",
    status,
    errorCode: status === 200 ? undefined : status === 429 ? "partner.rate_limited" : "request.invalid_fields",
    companyId: 1_000_000 + (index % 50),
    correlationId: "3f0c9a52-8a7e-4f4e-9d9e-3c1f3b7e9a10",
    latencyMs: 1.2,
    errorBody:
      status === 200
        ? undefined
        : {
            status: "error",
            statusCode: status,
            code: "partner.rate_limited",
            message: "Too many requests.",
            params: { retryAfter: 12 },
          },
  };
}

/** CPU microseconds per call of `each` over `count` calls (user + system, this process), best of three rounds. */
function cpuPerCall(count: number, each: (index: number) => void): number {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const before = process.cpuUsage();
    for (let index = 0; index < count; index++) each(index);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / count);
  }
  return best;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "pa-bench-log-"));
  const database = await openDatabase({ url: process.env["DATABASE_URL"], dataDir, logger: silentLogger });
  try {
    await migrateControl(database.sql, silentLogger);
    // The timer never fires during the loops (an hour): only explicit flushes write.
    const recorder = createRequestRecorder({
      sql: database.sql,
      clock: systemClock,
      logger: silentLogger,
      flushIntervalMs: 3_600_000,
      maxBuffered: Number.MAX_SAFE_INTEGER,
    });
    let sink = 0;
    const without = cpuPerCall(calls, (index) => {
      sink += callOf(index).status;
    });
    const recordOnly = createRequestRecorder({
      sql: database.sql,
      clock: systemClock,
      logger: silentLogger,
      flushIntervalMs: 3_600_000,
      maxBuffered: calls,
    });
    const withLog = cpuPerCall(calls, (index) => recordOnly.record(callOf(index)));
    await recordOnly.close().catch(() => undefined);

    // The flush: flushedCalls calls in batches of 1,000, written and trimmed.
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let index = 0; index < flushedCalls; index++) {
      recorder.record(callOf(index));
      if ((index + 1) % 1_000 === 0) await recorder.flush();
    }
    await recorder.close();
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const flushCpu = (cpu.user + cpu.system) / flushedCalls;
    process.stdout.write(
      [
        `partner request log: ${database.embedded ? "embedded PGlite" : "PostgreSQL"}, ${machine()}`,
        `on the request path, CPU per call:  without the log ${without.toFixed(3)} µs   with record() ${withLog.toFixed(3)} µs   cost ${(withLog - without).toFixed(3)} µs`,
        `off the request path, the flush:    ${flushCpu.toFixed(1)} µs CPU per call in this process, ${((wallMs * 1000) / flushedCalls).toFixed(1)} µs wall per call (batches of 1,000, ${flushedCalls} calls)`,
        `(sink ${sink % 7})`,
      ].join("\n") + "\n",
    );
  } finally {
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
