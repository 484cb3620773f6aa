// `npm run bench:tracing`: what traces cost (issue 41). An authenticated GET /v1/items?limit=10 through the service
// as `npm start -- --demo` runs it (bench/items.ts's call), five times on the same data, the service restarted
// between runs: tracing off (no OTEL_* variable), on and sampled (always_on, exporting to an OTLP/HTTP receiver in
// this process, in the default encoding, http/protobuf), on and sampled out (always_off: spans started, never
// exported), and both again with a span per database statement and Redis command (TRACE_STORAGE_SPANS=1). CPU per
// call of the service's process tree and its stores (bench/support/cpu-meter.ts), the ratios to the run with tracing
// off, and how many spans one sampled call makes without and with the store spans.
//
// Knobs: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50), DATABASE_URL / REDIS_URL (default embedded).
import autocannon from "autocannon";
import { startOtlpReceiver } from "../test/support/otlp-receiver.js";
import { exitOnErrors, figureLine, machine, metered, type Figure } from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";
import { startDemoService } from "./support/demo-service.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50);

async function main(): Promise<void> {
  const receiver = await startOtlpReceiver();
  const running = await startDemoService();
  try {
    const live = running.demo.merchants.live[0]!;
    const [connection] = await prepareRefreshFamilies({
      front: running.front,
      auth: running.auth,
      client: running.demo.apps.full.production,
      redirectUri: running.demo.redirectUri,
      owner: live.owner,
      count: 1,
    });
    const headers = { authorization: `Bearer ${connection!.accessToken}` };
    const url = `${running.front}/v1/items?limit=10`;
    const databaseUrl = process.env["DATABASE_URL"];
    const database = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : undefined;
    const run = async (): Promise<Figure> => {
      const check = await fetch(url, { headers });
      if (check.status !== 200) throw new Error(`the front answered ${check.status}: ${await check.text()}`);
      await autocannon({ url, connections, duration: 2, headers }); // warm-up
      const target = {
        root: running.service.child.pid!,
        ...(database ? { database } : {}),
        redis: Boolean(process.env["REDIS_URL"]),
      };
      return metered(target, () => autocannon({ url, connections, duration: seconds, headers }));
    };
    /** The names of the spans of one call's trace, once its root (which ends last) is exported. */
    const spansOfOneCall = async (): Promise<string[]> => {
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      const traceId = response.headers.get("x-correlation-id")!.replaceAll("-", "");
      const spans = await receiver.waitFor((all) =>
        all.some((span) => span.traceId === traceId && span.parentSpanId === ""),
      );
      return spans.filter((span) => span.traceId === traceId).map((span) => span.name);
    };
    /** A run after a restart with `env` added to the service's environment. */
    const runWith = async (env: Record<string, string>): Promise<Figure> => {
      Object.assign(running.env, env);
      await running.restart();
      return run();
    };
    const off = await run();
    const sampled = await runWith({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: "always_on" });
    const spansPerCall = await spansOfOneCall();
    const stores = await runWith({ TRACE_STORAGE_SPANS: "1" });
    const spansPerCallWithStores = await spansOfOneCall();
    const storesSampledOut = await runWith({ OTEL_TRACES_SAMPLER: "always_off" });
    const sampledOut = await runWith({ TRACE_STORAGE_SPANS: "0" });
    process.stdout.write(
      [
        `GET /v1/items?limit=10: ${connections} connections, ${seconds} s each, ${machine()}`,
        `stores: ${databaseUrl ? "PostgreSQL" : "embedded PGlite"}, ${process.env["REDIS_URL"] ? "Redis" : "no Redis"}`,
        figureLine("traces on, sampled", sampled, "traces off", off),
        figureLine("traces on, sampled out", sampledOut, "traces off", off),
        figureLine("store spans, sampled", stores, "traces off", off),
        figureLine("store spans, sampled out", storesSampledOut, "traces off", off),
        figureLine("store spans, sampled", stores, "sampled", sampled),
        `spans of one sampled call: ${spansPerCall.length} (${spansPerCall.join(", ")}); with store spans ` +
          `${spansPerCallWithStores.length} (${spansPerCallWithStores.join(", ")})`,
        `spans received: ${receiver.spans().length}; receiver problems: ${receiver.problems().length}`,
      ].join("\n") + "\n",
    );
    exitOnErrors([
      ["off", off],
      ["sampled", sampled],
      ["sampled out", sampledOut],
      ["store spans, sampled", stores],
      ["store spans, sampled out", storesSampledOut],
    ]);
  } finally {
    await running.stop();
    await receiver.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
