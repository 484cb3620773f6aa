// A span per database statement and Redis command (issue 41, TRACE_STORAGE_SPANS=1; src/storage/traced-sql.ts and
// traced-key-value.ts): with tracing on and the setting on, the stores opened afterwards make a client span per
// statement or command under the caller's recording span, and none outside one (background work) or under a
// sampled-out one; a fragment is no statement of its own, a transaction's statements are, a failure carries its
// SQLSTATE. The test database (TEST_DATABASE_URL or the embedded PGlite) and Redis (TEST_REDIS_URL, through
// openKeyValueStore; without it, the wrapper over the in-process store) export to the OTLP receiver on a real port.
import { context, trace, TraceFlags } from "@opentelemetry/api";
import * as assert from "uvu/assert";
import { systemClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { activeTracer, startTracing, type Tracing } from "../../src/runtime/tracing.js";
import {
  createMemoryStore,
  openKeyValueStore,
  type AtomicScript,
  type KeyValueStore,
} from "../../src/storage/key-value.js";
import type { Database } from "../../src/storage/postgres.js";
import { tracedKeyValueStore } from "../../src/storage/traced-key-value.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { openTestDatabase } from "../support/storage.js";
import { suite } from "../support/suite.js";

interface Context {
  otlp: OtlpReceiver;
  tracing: Tracing;
  database: Database;
  store: KeyValueStore;
}

const StoreSpans = suite<Context>("storage/store-spans");

StoreSpans.before(async (ctx) => {
  ctx.otlp = await startOtlpReceiver();
  ctx.tracing = startTracing(
    { OTEL_EXPORTER_OTLP_ENDPOINT: ctx.otlp.url, OTEL_TRACES_SAMPLER: "always_on", TRACE_STORAGE_SPANS: "1" },
    {},
  )!;
  // Opened after tracing started with the setting: wrapped (a store opened before would not be). Its own, not the
  // process's shared one: a light file batched before this one may hold that open, opened unwrapped.
  ctx.database = await openTestDatabase();
  const redisUrl = process.env["TEST_REDIS_URL"];
  ctx.store = redisUrl
    ? await openKeyValueStore({
        url: redisUrl,
        clock: systemClock,
        logger: silentLogger,
        prefix: `store_spans_${process.pid}_${Date.now()}:`,
      })
    : tracedKeyValueStore(createMemoryStore({ clock: systemClock }), 0);
});

StoreSpans.after(async (ctx) => {
  await ctx.store?.close();
  await ctx.database?.close();
  await ctx.tracing?.shutdown();
  await ctx.otlp?.close();
});

/** Runs `work` in a recording parent span; resolves with the spans of its trace once the parent is exported. */
async function underParent(
  ctx: Context,
  work: () => Promise<unknown>,
): Promise<{ parent: ReceivedSpan; spans: ReceivedSpan[] }> {
  const span = activeTracer()!.startSpan("parent");
  const { traceId, spanId } = span.spanContext();
  try {
    await context.with(trace.setSpan(context.active(), span), work);
  } finally {
    span.end();
  }
  await ctx.tracing.flush();
  const all = await ctx.otlp.waitFor((received) => received.some((s) => s.spanId === spanId));
  const spans = all.filter((s) => s.traceId === traceId && s.spanId !== spanId);
  return { parent: all.find((s) => s.spanId === spanId)!, spans };
}

StoreSpans(
  "a statement under a recording span is a client span, its child, named by verb and database",
  async (ctx) => {
    const sql = ctx.database.sql;
    const { parent, spans } = await underParent(ctx, async () => {
      const [row] = await sql<Array<{ n: number }>>`select ${41}::int + 1 as n`;
      assert.is(row?.n, 42);
    });
    assert.is(spans.length, 1, JSON.stringify(spans, null, 1));
    const [statement] = spans;
    assert.is(statement!.parentSpanId, parent.spanId);
    assert.is(statement!.kind, 3);
    assert.is(statement!.name, `SELECT ${statement!.attributes["db.namespace"]}`);
    assert.equal(
      {
        system: statement!.attributes["db.system.name"],
        operation: statement!.attributes["db.operation.name"],
        text: statement!.attributes["db.query.text"],
        status: statement!.status,
      },
      { system: "postgresql", operation: "SELECT", text: "select ?::int + 1 as n", status: 0 },
      "the template's text, never its values",
    );
  },
);

StoreSpans(
  "a fragment makes no span; a transaction's statements each make one; a failure has its SQLSTATE",
  async (ctx) => {
    const sql = ctx.database.sql;
    const table = `store_spans_${process.pid}_${Date.now()}`;
    const { parent, spans } = await underParent(ctx, async () => {
      await sql`select 1 as one ${sql`where true`}`;
      await sql.begin(async (tx) => {
        await tx`create temporary table ${tx(table)} (id int) on commit drop`;
        await tx`insert into ${tx(table)} values (${1})`;
      });
      await sql`select * from no_such_table_anywhere`.catch(() => undefined);
    });
    assert.equal(
      spans.map((span) => [span.name.split(" ")[0], span.parentSpanId === parent.spanId, span.status]),
      [
        ["SELECT", true, 0],
        ["CREATE", true, 0],
        ["INSERT", true, 0],
        ["SELECT", true, 2],
      ],
      JSON.stringify(spans.map((span) => span.attributes["db.query.text"])),
    );
    assert.is(spans[0]!.attributes["db.query.text"], "select 1 as one ?");
    assert.is(spans[3]!.attributes["db.response.status_code"], "42P01");
  },
);

StoreSpans("no span outside a span, nor under a sampled-out one", async (ctx) => {
  const sql = ctx.database.sql;
  const before = ctx.otlp.spans().length;
  await sql`select 'outside' as here`;
  const sampledOut = trace.wrapSpanContext({
    traceId: "7bf92f3577b34da6a3ce929d0e0e4739",
    spanId: "00f067aa0ba902ba",
    traceFlags: TraceFlags.NONE,
  });
  await context.with(trace.setSpan(context.active(), sampledOut), async () => {
    await sql`select 'sampled out' as here`;
    await ctx.store.get("sampled-out");
  });
  // A span after them flushes everything ended before it: had they made spans, they would be there by then.
  const { spans } = await underParent(ctx, async () => {});
  assert.equal(spans, []);
  assert.equal(
    ctx.otlp
      .spans()
      .slice(before)
      .map((span) => span.name),
    ["parent"],
  );
});

const pair: AtomicScript = {
  name: "store-spans-pair",
  lua: "redis.call('SET', KEYS[1], ARGV[1]) return {tonumber(ARGV[1])}",
  local: (entries, keys, args) => {
    entries.set(keys[0]!, String(args[0]), 60_000);
    return [args[0]!];
  },
};

StoreSpans("a Redis command under a recording span is a client span named by its command", async (ctx) => {
  const { store } = ctx;
  const { parent, spans } = await underParent(ctx, async () => {
    assert.is(await store.hit("window", systemClock.now() + 60_000), 1);
    await store.set("flag", "on", 60_000);
    assert.is(await store.get("flag"), "on");
    assert.is(await store.setIfAbsent("flag", "again", 60_000), false);
    assert.equal(await store.run(pair, ["pair"], [7]), [7]);
    await store.del("flag");
  });
  assert.equal(
    spans.map((span) => [
      span.name,
      span.parentSpanId === parent.spanId,
      span.kind,
      span.attributes["db.system.name"],
      span.attributes["db.operation.name"],
    ]),
    [
      ["EVALSHA fixed-window-hit", true, 3, "redis", "EVALSHA"],
      ["SET", true, 3, "redis", "SET"],
      ["GET", true, 3, "redis", "GET"],
      ["SET", true, 3, "redis", "SET"],
      ["EVALSHA store-spans-pair", true, 3, "redis", "EVALSHA"],
      ["DEL", true, 3, "redis", "DEL"],
    ],
  );
  // The database number: the URL's path, 0 without one.
  const redisUrl = process.env["TEST_REDIS_URL"];
  assert.is(
    spans[0]!.attributes["db.namespace"],
    redisUrl ? String(Number(new URL(redisUrl).pathname.slice(1) || 0)) : "0",
  );
});

StoreSpans.run();
