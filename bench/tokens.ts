// `npm run bench:tokens`: minting and refreshing against the ceiling of this machine, each in its own process.
// - the service as `npm start -- --demo` starts it (bench/support/service.ts), default logging, to a file;
// - raw RS256 signatures (crypto.sign with a callback, IN_FLIGHT 16) in a second process: the ceiling;
// - autocannon here, the third: POST /v1/token (sandbox mint) and POST /v1/oauth/token grant_type=refresh_token
//   over many refresh families prepared in advance through the real consent and code exchange.
// Goal (issue 16): mints/s and refreshes/s each at least 0.7 of the raw signs/s. On PostgreSQL a refresh is also
// compared with a signature plus one committed single-row UPDATE (bench/support/durable-writes.ts): the rotation
// must be durable, and that commit is part of what the call must do. Each line also gives the CPU per
// call (bench/support/cpu-meter.ts): the service's process tree, the PostgreSQL backends of its connections,
// redis-server; the raw signs' own process per signature.
//
// Knobs: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50), BENCH_FAMILIES (refresh families, default 200),
// BENCH_CALLS (which to run: "mints", "refreshes" or both, the default; one alone makes a profile of its own),
// DATABASE_URL / REDIS_URL (default: embedded, as `npm start`).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import autocannon, { type Request as AutocannonRequest } from "autocannon";
import { exitOnErrors, figureLine, machine, metered, type Figure } from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";
import { startDemoService } from "./support/demo-service.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50);
const familyCount = Number(process.env["BENCH_FAMILIES"] ?? 200);
const calls = new Set((process.env["BENCH_CALLS"] ?? "mints,refreshes").split(","));

/** Raw async signatures in a process of their own, sized as the service's pool is. */
async function rawSigns(): Promise<Figure> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--require",
    "./src/runtime/thread-pool.cjs",
    "--import",
    "tsx",
    "bench/support/raw-signs.ts",
    String(seconds),
    "16",
  ]);
  return JSON.parse(stdout) as Figure;
}

/**
 * A refresh's other floor: a signature and one durable single-row write (bench/support/durable-writes.ts), on
 * PostgreSQL only (the embedded PGlite is in the service's process).
 */
async function durableWrites(inFlight: number): Promise<Figure> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "bench/support/durable-writes.ts", String(seconds), String(inFlight)],
    { env: process.env },
  );
  return JSON.parse(stdout) as Figure;
}

/** Two floors one after the other: their CPU per call added (the rate and latencies are the first's). */
function sumOf(first: Figure, second: Figure): Figure {
  const cpu = (part: keyof NonNullable<Figure["cpu"]>) => (first.cpu?.[part] ?? 0) + (second.cpu?.[part] ?? 0);
  return {
    ...first,
    cpu: { total: cpu("total"), service: cpu("service"), postgres: cpu("postgres"), redis: cpu("redis") },
  };
}

async function main(): Promise<void> {
  const running = await startDemoService();
  const { service, demo, front, auth } = running;
  try {
    const sandbox = demo.apps.full.sandbox;
    const mintBody = JSON.stringify({
      grant_type: "client_credentials",
      client_id: sandbox.clientId,
      client_secret: sandbox.clientSecret,
      merchant_id: demo.merchants.sandbox[0]!.companyId,
    });
    const check = await fetch(`${front}/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: mintBody,
    });
    if (check.status !== 200) throw new Error(`POST /v1/token answered ${check.status}: ${await check.text()}`);

    const production = demo.apps.full.production;
    const live = demo.merchants.live[0]!;
    const families = calls.has("refreshes")
      ? await prepareRefreshFamilies({
          front,
          auth,
          client: production,
          redirectUri: demo.redirectUri,
          owner: live.owner,
          count: familyCount,
        })
      : [];

    // The service's calls cost its process tree, the backends of its connections (PostgreSQL only: the embedded
    // PGlite is in its process) and Redis when it counts its throttles there.
    const databaseUrl = process.env["DATABASE_URL"];
    const target = {
      root: service.child.pid!,
      ...(databaseUrl ? { database: decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) } : {}),
      redis: Boolean(process.env["REDIS_URL"]),
    };
    const ceiling = await rawSigns();
    await autocannon({
      url: `${front}/v1/token`,
      connections,
      duration: 2,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: mintBody,
    });
    const mints = calls.has("mints")
      ? await metered(target, () =>
          autocannon({
            url: `${front}/v1/token`,
            connections,
            duration: seconds,
            method: "POST",
            headers: { "content-type": "application/json" },
            body: mintBody,
          }),
        )
      : undefined;

    // Each connection takes a family's live token and puts back its successor; never two refreshes of one family
    // at once (that would be a reuse, which revokes the family).
    const idle = families.map((family) => family.refreshToken);
    const refreshRequest: AutocannonRequest = {
      method: "POST",
      path: "/v1/oauth/token",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      setupRequest(request, context) {
        const token = idle.shift();
        if (!token) throw new Error("more connections than refresh families: raise BENCH_FAMILIES");
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
    };
    const refreshes = calls.has("refreshes")
      ? await metered(target, () =>
          autocannon({
            url: front,
            connections: Math.min(connections, families.length),
            duration: seconds,
            requests: [refreshRequest],
          }),
        )
      : undefined;

    const writes = refreshes && databaseUrl ? await durableWrites(Math.min(connections, families.length)) : undefined;

    const figures = (
      [
        ["mints", mints],
        ["refreshes", refreshes],
      ] as Array<[string, Figure | undefined]>
    ).filter((figure): figure is [string, Figure] => figure[1] !== undefined);
    process.stdout.write(
      [
        `tokens: ${connections} connections, ${seconds} s each, ${families.length} refresh families, ${service.ready["embeddedDatabase"] ? "embedded PGlite" : "PostgreSQL"}, ` +
          `${service.ready["sharedLimits"] ? "Redis" : "in-process limits"}, ${machine()}`,
        ...(mints ? [figureLine("POST /v1/token (sandbox mint)", mints, "raw async RS256 signs", ceiling)] : []),
        ...(refreshes
          ? [figureLine("POST /v1/oauth/token (refresh)", refreshes, "raw async RS256 signs", ceiling)]
          : []),
        ...(refreshes && writes
          ? [
              figureLine(
                "  the same, ÷ sign + durable write",
                refreshes,
                "raw sign + one committed UPDATE",
                sumOf(ceiling, writes),
              ),
              `  one committed single-row UPDATE alone: ${writes.rate.toFixed(0)}/s, ${writes.cpu!.total.toFixed(0)} µs of CPU (process ${writes.cpu!.service.toFixed(0)}, PostgreSQL ${writes.cpu!.postgres.toFixed(0)})`,
            ]
          : []),
      ].join("\n") + "\n",
    );
    exitOnErrors(figures);
  } finally {
    await running.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
