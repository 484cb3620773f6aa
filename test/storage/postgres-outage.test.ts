// The PostgreSQL outage fault test (issue 15): the whole app on a PostgreSQL server of the test's own (never the
// machine's shared one), stopped under traffic (pg_ctl -m fast, then -m immediate) and started again. While it is
// down every route family answers 503 with its catalogue code and Retry-After (how long that takes is measured by
// bench/outage-deadlines.ts, not asserted here; the pools' bounds are): partner envelope and developer envelope
// `server.database_unavailable`, the OAuth body
// `temporarily_unavailable`, the consent site a 503 page, the internal port UNAVAILABLE; API keys are refused
// 503 `partner.api_key_unavailable` (fail closed); /readyz is 503 naming the databases, /healthz stays 200. Once
// it is back the app recovers by itself, and every item written before each stop is still there.
// Runs in both CI modes (it brings its own server); without the PostgreSQL binaries it fails, never skips.
import { createServer, connect, type Socket } from "node:net";
import { createClient, ConnectError, Code, type Client } from "@connectrpc/connect";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { messageFor } from "../../src/errors/index.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { openDatabase, reconnectDelaySeconds } from "../../src/storage/postgres.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { newSeededWorld } from "../support/client.js";
import { connectTransport } from "../support/internal.js";
import { startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";
import { answerOf, type Answer } from "../support/sandbox.js";
import { startTestApp, type TestApp, type World } from "../support/test-app.js";

const Outage = suite("storage/postgres-outage");
// Mid-minute on the manual clock, so the per-minute windows do not roll over between a call and its check.
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 + 5_000);
let pg: PrivatePostgres | undefined;
let test: TestApp | undefined;
let grants: Client<typeof GrantService>;
let full: World;
let adsr: World & { apiKey?: string };
let token: string;
let addresses = 0;
/** Every item created while the database was up: none may be missing after a restart. */
const written: Array<{ itemId: string; code: string }> = [];

Outage.before(async () => {
  // uvu counts a failing hook as failed tests but prints nothing of it: say why, loudly.
  pg = await startPrivatePostgres().catch((error: unknown) => {
    console.error("storage/postgres-outage: cannot start a private PostgreSQL:", error);
    throw error;
  });
  test = await startTestApp({ clock, redis: false, env: { DATABASE_URL: pg.url, TRUST_PROXY: "127.0.0.1" } });
  grants = createClient(GrantService, connectTransport(test.app.grpc.port, test.internal.operator));
  full = await newSeededWorld(test, clock, "https://app.example/callback");
  adsr = await newSeededWorld(test, clock, "https://app.example/callback", Product.ADSR);
  const minted = await mintToken();
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  token = minted.body["access_token"] as string;
});
Outage.after(async () => {
  await test?.stop();
  await pg?.destroy();
});

const nextAddress = () => `203.0.113.${++addresses % 250}`;

/** POST /v1/token: client_credentials for the FULL world's sandbox merchant (developer envelope). */
async function mintToken(): Promise<Answer> {
  return answerOf(
    await fetch(`${test!.base}/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
      body: JSON.stringify({
        grant_type: "client_credentials",
        client_id: full.clientId,
        client_secret: full.clientSecret,
      }),
    }),
  );
}

const partnerGet = async (path: string) =>
  answerOf(await fetch(`${test!.base}${path}`, { headers: { authorization: `Bearer ${token}` } }));

async function createItem(code: string): Promise<Answer> {
  return answerOf(
    await fetch(`${test!.base}/v1/items`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `Outage ${code}`, code, priceMinor: 100 }),
    }),
  );
}

/** Every item of the FULL world's merchant, page by page. */
async function itemCodes(): Promise<Set<string>> {
  const codes = new Set<string>();
  let cursor: string | undefined;
  do {
    const path = `/v1/items?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const answer = await untilOk(() => partnerGet(path));
    for (const item of answer.body["items"] as Array<{ code: string }>) codes.add(item.code);
    cursor = (answer.body["nextCursor"] as string | undefined) || undefined;
  } while (cursor);
  return codes;
}

const unavailableMessage = messageFor("server.database_unavailable", { retryAfter: "5" });

function assertPartner503(answer: Answer, path: string): void {
  assert.is(answer.status, 503, JSON.stringify(answer.body));
  assert.is(answer.headers.get("retry-after"), "5");
  assert.is(answer.body["code"], "server.database_unavailable");
  assert.is(answer.body["statusCode"], 503);
  assert.is(answer.body["path"], path);
  assert.is(answer.body["message"], unavailableMessage);
  assert.equal(answer.body["params"], { retryAfter: 5 });
}

function assertDeveloper503(answer: Answer): void {
  assert.is(answer.status, 503, JSON.stringify(answer.body));
  assert.is(answer.headers.get("retry-after"), "5");
  assert.equal(answer.body, {
    error: { code: "server.database_unavailable", message: unavailableMessage, details: [], params: { retryAfter: 5 } },
  });
}

/** One round of traffic against the stopped database: every family, the probes, the internal port. */
async function assertDown(round: number): Promise<void> {
  // Past every in-process cache (merchant routing, verified keys and secrets): each answer needs the database.
  clock.advance(Math.max(test!.config.caches.gatewaySeconds, test!.config.caches.credentialSeconds) * 1000 + 1000);

  const [items, write, stores] = await Promise.all([
    partnerGet("/v1/items"),
    createItem(`down-${round}`),
    partnerGet("/v1/stores"),
  ]);
  assertPartner503(items, "/v1/items");
  assertPartner503(write, "/v1/items");
  assertPartner503(stores, "/v1/stores");

  const keyed = await answerOf(
    await fetch(`${test!.base}/v1/stores?companyId=${adsr.companyId}`, { headers: { "x-api-key": adsr.apiKey! } }),
  );
  assert.is(keyed.status, 503, JSON.stringify(keyed.body));
  assert.is(keyed.body["code"], "partner.api_key_unavailable");
  assert.is(keyed.headers.get("retry-after"), "5");
  assert.equal(keyed.body["params"], { retryAfter: 5 });

  assertDeveloper503(await mintToken());
  const signIn = await answerOf(
    await fetch(`${test!.base}/v1/console/session/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": nextAddress() },
      body: JSON.stringify({ email: `nobody.${round}@outage.test`, password: "correct horse battery staple" }),
    }),
  );
  assertDeveloper503(signIn);

  const oauth = await answerOf(
    await fetch(`${test!.base}/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": nextAddress() },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: full.clientId,
        client_secret: full.clientSecret,
      }),
    }),
  );
  assert.is(oauth.status, 503, JSON.stringify(oauth.body));
  assert.is(oauth.headers.get("retry-after"), "5");
  assert.is(oauth.headers.get("cache-control"), "no-store");
  assert.equal(oauth.body, {
    error: "temporarily_unavailable",
    error_description: unavailableMessage,
    code: "server.database_unavailable",
  });

  const query = new URLSearchParams({
    response_type: "code",
    client_id: full.clientId,
    redirect_uri: full.redirectUri,
    state: "s1",
  });
  const page = await fetch(`${test!.auth}/oauth/authorize?${query}`);
  const html = await page.text();
  assert.is(page.status, 503, html);
  assert.is(page.headers.get("retry-after"), "5");
  assert.match(html, "Error code: <code>server.database_unavailable</code>");
  assert.match(html, unavailableMessage);

  const internal = await grants.getAccessRequest({ accessRequestId: "1" }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.instance(internal, ConnectError);
  assert.is((internal as ConnectError).code, Code.Unavailable);
  const info = (internal as ConnectError).findDetails(ErrorInfoSchema)[0];
  assert.is(info?.reason, "server.database_unavailable");
  assert.equal(info?.metadata, { retryAfter: "5" });

  const ready = await fetch(`${test!.base}/readyz`);
  assert.is(ready.status, 503);
  assert.is(ready.headers.get("retry-after"), "5");
  assert.equal(await ready.json(), {
    status: "not_ready",
    down: ["database:control", "database:region_uk", "database:region_us", "database:region_in", "database:region_ae"],
  });
  const consentReady = await fetch(`${test!.auth}/readyz`);
  assert.is(consentReady.status, 503);
  assert.is(
    await consentReady.text(),
    "not ready: database:control, database:region_uk, database:region_us, database:region_in, database:region_ae\n",
  );
  const live = await fetch(`${test!.base}/healthz`);
  assert.is(live.status, 200);
  assert.equal(await live.json(), { status: "ok" });

  const logs = test!.logs.join("\n");
  assert.not.match(logs, /"unexpected failure"/);
  assert.not.match(logs, full.clientSecret);
}

/**
 * A 503 server.database_unavailable is the only failure allowed while the database is up again: postgres.js keeps
 * the error of a statement that was in flight when its connection was killed and replays it onto that connection's
 * first statement after the reconnect, before sending it (porsager/postgres#1223; docs/decisions.md, "Storage").
 */
function assertOkOrReplay(answer: Answer): boolean {
  if (answer.status === 200) return true;
  assert.is(answer.status, 503, JSON.stringify(answer.body));
  assert.is(answer.body["code"], "server.database_unavailable");
  return false;
}

/** Calls until a 200, past at most a few replays (assertOkOrReplay): a read or a token mint, harmless to repeat. */
async function untilOk(call: () => Promise<Answer>): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call();
    if (assertOkOrReplay(answer)) return answer;
    assert.ok(attempt < 4, "still 503 after the database is back");
  }
}

/** Writes items (in parallel) while the database is up, and remembers those answered 200. */
async function writeItems(round: string): Promise<void> {
  const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => createItem(`${round}-${n}`)));
  answers.forEach((answer, n) => {
    if (assertOkOrReplay(answer))
      written.push({ itemId: String((answer.body["item"] as { id: string }).id), code: `${round}-${n + 1}` });
  });
  assert.ok(
    written.some((item) => item.code.startsWith(`${round}-`)),
    `no item of ${round} written`,
  );
}

/**
 * Polls until /readyz and a batch of parallel partner calls (more than the pool's connections) all answer 200
 * again, with no restart of the app, within a generous limit; meanwhile nothing but 200 or 503.
 */
async function assertRecovers(): Promise<void> {
  const deadline = performance.now() + 20_000;
  for (;;) {
    const [ready, ...items] = await Promise.all([
      fetch(`${test!.base}/readyz`),
      ...Array.from({ length: 12 }, () => partnerGet("/v1/items")),
    ]);
    const ok = items.map(assertOkOrReplay).every(Boolean);
    if (ready.status === 200 && ok) {
      assert.equal(await ready.json(), { status: "ready" });
      break;
    }
    assert.ok([200, 503].includes(ready.status), `/readyz ${ready.status}`);
    await ready.body?.cancel();
    assert.ok(performance.now() < deadline, `not recovered: /readyz ${ready.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await untilOk(mintToken);
  const codes = await itemCodes();
  for (const item of written) assert.ok(codes.has(item.code), `item ${item.code} (${item.itemId}) lost`);
}

Outage("up: /healthz and /readyz 200, calls succeed; the ready probe is not behind the gateway", async () => {
  const ready = await fetch(`${test!.base}/readyz`);
  assert.is(ready.status, 200);
  assert.is(ready.headers.get("cache-control"), "no-store");
  assert.equal(await ready.json(), { status: "ready" });
  const consentReady = await fetch(`${test!.auth}/readyz`);
  assert.is(consentReady.status, 200);
  assert.is(await consentReady.text(), "ready\n");
  assert.is((await partnerGet("/v1/items")).status, 200);
});

// What bounds an answer while the database is down, read off the app's own pools (postgres.js keeps its parsed
// options): a connection attempt gives up after DATABASE_CONNECT_TIMEOUT_SECONDS, and the pause between attempts is
// reconnectDelaySeconds (at most a second, never growing with the failures: postgres.js's own reached 20 s).
Outage("up: every pool of the app connects within the configured timeout and retries on the short pause", () => {
  const pools = [test!.app.control, ...test!.app.regionDatabases.values()];
  assert.is(pools.length, 5);
  for (const { sql } of pools) {
    const { options } = sql;
    assert.is(options.connect_timeout, test!.config.databaseTimeouts.connectSeconds);
    assert.is(options.connect_timeout, 2);
    assert.is(options.backoff, reconnectDelaySeconds);
  }
});

Outage(
  "only the first connection reads the array types: a connection killed during that read crashed the process",
  async () => {
    // A TCP relay in front of the private server that keeps what each connection sent.
    const sent: string[] = [];
    const sockets = new Set<Socket>();
    const relay = createServer((client) => {
      const index = sent.push("") - 1;
      const upstream = connect(pg!.port, "127.0.0.1");
      sockets.add(client).add(upstream);
      client.on("data", (chunk: Buffer) => {
        sent[index] += chunk.toString("latin1");
        upstream.write(chunk);
      });
      upstream.on("data", (chunk: Buffer) => client.write(chunk));
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
      client.on("error", () => {});
      upstream.on("error", () => {});
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const { port } = relay.address() as { port: number };
    const database = await openDatabase({
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      dataDir: ":memory:",
      logger: silentLogger,
      poolSize: 3,
    });
    try {
      // Three statements at once open two more connections; arrays still parse on them.
      const rows = await Promise.all(
        [1, 2, 3].map((n) => database.sql`select pg_sleep(0.2), ${[n, 2 ** 40]}::bigint[] as ids`),
      );
      assert.equal(
        rows.map(([row]) => row!["ids"]),
        [
          [1, 2 ** 40],
          [2, 2 ** 40],
          [3, 2 ** 40],
        ],
      );
      assert.is(sent.length, 3);
      assert.equal(
        sent.map((bytes) => bytes.includes("typarray")),
        [true, false, false],
      );
    } finally {
      await database.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    }
  },
);

for (const mode of ["fast", "immediate"] as const) {
  Outage(
    `pg_ctl stop -m ${mode} under traffic: 503 with codes and Retry-After, every round; back: recovered, nothing lost`,
    async () => {
      await writeItems(mode);
      // Traffic in flight while the server stops: each answer is a 200 or a 503 of the catalogue, never a 500.
      const inFlight = Promise.all(
        Array.from({ length: 6 }, (_, n) => (n % 2 ? partnerGet("/v1/items") : createItem(`${mode}-flight-${n}`))),
      );
      await pg!.stop(mode);
      for (const answer of await inFlight) {
        assert.ok(answer.status === 200 || answer.status === 503, `${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status === 503) assert.is(answer.body["code"], "server.database_unavailable");
      }
      // Several rounds: each pays a failed connection attempt again (the pause before it is the pools' backoff, above).
      for (const round of [1, 2, 3]) await assertDown(round);
      await pg!.start();
      await assertRecovers();
    },
  );
}

Outage.run();
