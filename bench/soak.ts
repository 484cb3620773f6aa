// `npm run bench:soak`: does memory stay flat? The service as `npm start -- --demo` runs it, under moderate load
// (GET /v1/items?limit=10 with one bearer token, mints at POST /v1/token and refreshes, SOAK_RATE requests/s in all)
// for SOAK_SECONDS (default 600), its RSS sampled every SOAK_SAMPLE_SECONDS (10). The goal (issue 16): the last
// sample within 10% of the one taken when warm-up (SOAK_WARMUP_SECONDS, default 60) ends.
// Knobs: SOAK_SECONDS, SOAK_WARMUP_SECONDS, SOAK_SAMPLE_SECONDS, SOAK_RATE (default 200), DATABASE_URL / REDIS_URL.
import { readFile } from "node:fs/promises";
import autocannon, { type Request as AutocannonRequest } from "autocannon";
import { startDemoService } from "./support/demo-service.js";
import { machine } from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";

const seconds = Number(process.env["SOAK_SECONDS"] ?? 600);
const warmupSeconds = Number(process.env["SOAK_WARMUP_SECONDS"] ?? 60);
const sampleSeconds = Number(process.env["SOAK_SAMPLE_SECONDS"] ?? 10);
const rate = Number(process.env["SOAK_RATE"] ?? 200);
const connections = 10;

/** Resident set size of a process in MiB (Linux: /proc/<pid>/status). */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!match) throw new Error("no VmRSS in /proc/<pid>/status");
  return Number(match[1]) / 1024;
}

async function main(): Promise<void> {
  const running = await startDemoService();
  try {
    const { demo, front } = running;
    const live = demo.merchants.live[0]!;
    const production = demo.apps.full.production;
    const sandbox = demo.apps.full.sandbox;
    const families = await prepareRefreshFamilies({
      front,
      auth: running.auth,
      client: production,
      redirectUri: demo.redirectUri,
      owner: live.owner,
      count: connections * 2,
    });
    const idle = families.map((family) => family.refreshToken);
    const requests: AutocannonRequest[] = [
      { method: "GET", path: "/v1/items?limit=10", headers: { authorization: `Bearer ${families[0]!.accessToken}` } },
      {
        method: "POST",
        path: "/v1/token",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          grant_type: "client_credentials",
          client_id: sandbox.clientId,
          client_secret: sandbox.clientSecret,
          merchant_id: demo.merchants.sandbox[0]!.companyId,
        }),
      },
      {
        method: "POST",
        path: "/v1/oauth/token",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        setupRequest(request, context) {
          const token = idle.shift();
          if (!token) throw new Error("no refresh family left");
          context["token"] = token;
          return {
            ...request,
            body: new URLSearchParams({
              grant_type: "refresh_token",
              refresh_token: token,
              client_id: production.clientId,
              client_secret: production.clientSecret,
            }).toString(),
          };
        },
        onResponse(status, body, context) {
          idle.push(
            status === 200 ? (JSON.parse(body) as { refresh_token: string }).refresh_token : String(context["token"]),
          );
        },
      },
    ];
    const pid = running.service.child.pid!;
    const samples: Array<{ at: number; rss: number }> = [];
    const started = performance.now();
    const sampler = setInterval(() => {
      void rssMiB(pid).then((rss) => samples.push({ at: Math.round((performance.now() - started) / 1000), rss }));
    }, sampleSeconds * 1000);
    const result = await autocannon({ url: front, connections, duration: seconds, overallRate: rate, requests });
    clearInterval(sampler);
    const afterWarmup = samples.find((sample) => sample.at >= warmupSeconds) ?? samples[0];
    const last = samples.at(-1);
    if (!afterWarmup || !last) throw new Error("no RSS sample: SOAK_SECONDS shorter than SOAK_SAMPLE_SECONDS");
    const change = (last.rss / afterWarmup.rss - 1) * 100;
    process.stdout.write(
      [
        `soak: ${seconds} s at ${rate} req/s (items, mints, refreshes), RSS every ${sampleSeconds} s, ${running.service.ready["embeddedDatabase"] ? "embedded PGlite" : "PostgreSQL"}, ${machine()}`,
        `RSS MiB: ${samples.map((sample) => `${sample.at}s ${sample.rss.toFixed(0)}`).join(", ")}`,
        `RSS after warm-up (${afterWarmup.at} s) ${afterWarmup.rss.toFixed(1)} MiB, at the end ${last.rss.toFixed(1)} MiB: ${change >= 0 ? "+" : ""}${change.toFixed(1)}% (goal within 10%)`,
        `requests ${result.requests.average.toFixed(0)}/s, p99 ${result.latency.p99} ms, errors ${result.errors + result.non2xx + result.timeouts}`,
      ].join("\n") + "\n",
    );
    if (result.errors + result.non2xx + result.timeouts > 0) process.exitCode = 1;
  } finally {
    await running.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
