// `npm run bench:tokens`: minting and refreshing against their floors measured in the same run (issue 43), each
// server in its own process:
// - the service as `npm start -- --demo` starts it (bench/support/service.ts), default logging, to a file;
// - the plain mint and the plain refresh (bench/support/plain-token.ts, PostgreSQL): node:http, the same one Redis
//   count, one indexed single-row read, one RS256 signature on the thread pool, a token-shaped JSON answer; the
//   refresh with one committed statement that rotates one row out and inserts its successor;
// - autocannon here, the third: POST /v1/token (sandbox mint), and grant_type=refresh_token (HTTP Basic, form
//   body) in two shapes: BENCH_FAMILIES (32) families of one app and ONE merchant (made through the real consent
//   and code exchange), and as many families of the same app each on a merchant of its own (seeded in SQL:
//   bench/support/merchant-families.ts), each family refreshed in a closed loop (one connection per family).
// Each line gives throughput, p50 / p99 and the CPU per call (bench/support/cpu-meter.ts: the server's process tree,
// the PostgreSQL backends of its connections, redis-server) of both sides, and the CPU ratio floor ÷ call. Embedded
// (no DATABASE_URL), the floor is a raw RS256 signature in a process of its own (bench/support/raw-signs.ts).
//
// Knobs: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50, the mints), BENCH_FAMILIES (32), BENCH_CALLS (which to
// run: "mints", "refreshes", "merchants", default all three), BENCH_REFRESH_AUTH ("basic", the default, or "post":
// client_secret in the body), BENCH_TURNS (4: the mints and their floor take turns), DATABASE_URL / REDIS_URL
// (default: embedded, as `npm start`).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import postgres from "postgres";
import autocannon, { type Request as AutocannonRequest } from "autocannon";
import {
  exitOnErrors,
  figureLine,
  machine,
  metered,
  meteredInTurns,
  turns,
  type Figure,
  type Side,
} from "./support/measure.js";
import { prepareRefreshFamilies } from "./support/refresh-families.js";
import { seedMerchantFamilies } from "./support/merchant-families.js";
import { startDemoService } from "./support/demo-service.js";
import { startHelper } from "./support/service.js";
import type { CpuMeterOptions } from "./support/cpu-meter.js";

const seconds = Number(process.env["BENCH_SECONDS"] ?? 10);
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50);
const familyCount = Number(process.env["BENCH_FAMILIES"] ?? 32);
const calls = new Set((process.env["BENCH_CALLS"] ?? "mints,refreshes,merchants").split(","));
const basicAuth = (process.env["BENCH_REFRESH_AUTH"] ?? "basic") === "basic";
const databaseUrl = process.env["DATABASE_URL"];

/** Raw async signatures in a process of their own, sized as the service's pool is: the embedded mode's floor. */
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

interface Client {
  clientId: string;
  clientSecret: string;
}

/**
 * Refreshes in closed loops: each connection takes a family's live token and puts back its successor; never two
 * refreshes of one family at once (that would be a reuse, which revokes the family).
 */
function refreshRequest(path: string, tokens: string[], client: Client): AutocannonRequest {
  const idle = [...tokens];
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString("base64")}`;
  return {
    method: "POST",
    path,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(basicAuth ? { authorization: basic } : {}),
    },
    setupRequest(request, context) {
      const token = idle.shift();
      if (!token) throw new Error("more connections than refresh families");
      context["token"] = token;
      const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: token });
      if (!basicAuth) {
        form.set("client_id", client.clientId);
        form.set("client_secret", client.clientSecret);
      }
      return { ...request, body: form.toString() };
    },
    onResponse(status, body, context) {
      idle.push(
        status === 200 ? (JSON.parse(body) as { refresh_token: string }).refresh_token : String(context["token"]),
      );
    },
  };
}

const mintRun = (url: string, body: string, duration: number) =>
  autocannon({
    url,
    connections,
    duration,
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

async function main(): Promise<void> {
  const running = await startDemoService();
  const { service, demo, front, auth } = running;
  const helpers: Array<{ stop(): Promise<void> }> = [];
  const sql = databaseUrl ? postgres(databaseUrl, { max: 2, onnotice: () => {} }) : undefined;
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
    const oneMerchant = calls.has("refreshes")
      ? (
          await prepareRefreshFamilies({
            front,
            auth,
            client: production,
            redirectUri: demo.redirectUri,
            owner: live.owner,
            count: familyCount,
          })
        ).map((family) => family.refreshToken)
      : [];
    const manyMerchants =
      calls.has("merchants") && sql
        ? await seedMerchantFamilies(sql, { clientId: production.clientId, region: live.region, count: familyCount })
        : [];

    // The service's calls cost its process tree, the backends of its connections (PostgreSQL only: the embedded
    // PGlite is in its process) and Redis when it counts its throttles there.
    const stores = {
      ...(databaseUrl ? { database: decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) } : {}),
      redis: Boolean(process.env["REDIS_URL"]),
    };
    const target = { root: service.child.pid!, ...stores };
    const plain = databaseUrl
      ? await startHelper("bench/support/plain-token.ts", {
          DATABASE_URL: databaseUrl,
          FAMILIES: String(familyCount),
          CLIENT_ID: sandbox.clientId,
          ...(process.env["REDIS_URL"] ? { REDIS_URL: process.env["REDIS_URL"] } : {}),
        })
      : undefined;
    if (plain) helpers.push(plain);
    const plainUrl = plain && `http://127.0.0.1:${plain.port}`;
    const plainTarget = plain && { root: plain.pid, ...stores };

    // No warm-up run: a refresh in flight when a run ends is answered to nobody, and its family's next refresh
    // would present the token it rotated out (a reuse, which ends the family). The mints warm the service first.
    const refreshes = (url: string, path: string, tokens: string[], on: CpuMeterOptions) =>
      metered(on, () =>
        autocannon({
          url,
          connections: tokens.length,
          duration: seconds,
          requests: [refreshRequest(path, tokens, production)],
        }),
      );
    // Mints in turns with their floor (BENCH_TURNS, bench/support/measure.ts: meteredInTurns), so both see the same
    // machine; refreshes cannot take turns (a refresh cut off by a turn's end would end its family), so each shape
    // runs once, right beside its floor.
    const mintSides: Side[] = calls.has("mints")
      ? [
          { target, run: (duration) => mintRun(`${front}/v1/token`, mintBody, duration) },
          ...(plainUrl && plainTarget
            ? [{ target: plainTarget, run: (duration: number) => mintRun(`${plainUrl}/mint`, mintBody, duration) }]
            : []),
        ]
      : [];
    const [mints, plainMints] = mintSides.length > 0 ? await meteredInTurns(mintSides, seconds) : [];
    const refreshOne =
      oneMerchant.length > 0 ? await refreshes(front, "/v1/oauth/token", oneMerchant, target) : undefined;
    const plainRefreshes =
      plain && plainTarget && (oneMerchant.length > 0 || manyMerchants.length > 0)
        ? await refreshes(
            `http://127.0.0.1:${plain.port}`,
            "/refresh",
            plain.ready["refreshTokens"] as string[],
            plainTarget,
          )
        : undefined;
    const refreshMany =
      manyMerchants.length > 0 ? await refreshes(front, "/v1/oauth/token", manyMerchants, target) : undefined;
    const signs = databaseUrl ? undefined : await rawSigns();

    const mintFloor = plainMints ?? signs;
    const refreshFloor = plainRefreshes ?? signs;
    const floorName = (plainName: string) => (databaseUrl ? plainName : "raw async RS256 signs");
    const figures = (
      [
        ["mints", mints],
        ["refreshes, one merchant", refreshOne],
        ["refreshes, many merchants", refreshMany],
      ] as Array<[string, Figure | undefined]>
    ).filter((figure): figure is [string, Figure] => figure[1] !== undefined);
    const authLabel = basicAuth ? "HTTP Basic" : "client_secret in the body";
    process.stdout.write(
      [
        `tokens: ${connections} connections (mints), ${familyCount} refresh families each shape (${authLabel}), ${seconds} s each, ` +
          `${service.ready["embeddedDatabase"] ? "embedded PGlite" : "PostgreSQL"}, ` +
          `${service.ready["sharedLimits"] ? "Redis" : "in-process limits"}, mints in ${turns} turns, ${machine()}`,
        ...(mints && mintFloor
          ? [figureLine("POST /v1/token (sandbox mint)", mints, floorName("plain mint"), mintFloor)]
          : []),
        ...(refreshOne && refreshFloor
          ? [
              figureLine(
                `refresh, ${familyCount} families, 1 merchant`,
                refreshOne,
                floorName("plain refresh"),
                refreshFloor,
              ),
            ]
          : []),
        ...(refreshMany && refreshFloor
          ? [figureLine(`refresh, ${familyCount} merchants`, refreshMany, floorName("plain refresh"), refreshFloor)]
          : []),
      ].join("\n") + "\n",
    );
    exitOnErrors([
      ...figures,
      ...(plainMints ? ([["plain mint", plainMints]] as Array<[string, Figure]>) : []),
      ...(plainRefreshes ? ([["plain refresh", plainRefreshes]] as Array<[string, Figure]>) : []),
    ]);
  } finally {
    for (const helper of helpers) await helper.stop();
    await sql?.end();
    await running.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
