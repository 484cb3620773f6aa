// A PostgreSQL that stops answering (issue 27): the whole app on a PostgreSQL server of the test's own, reached
// through a TCP forwarder that is then frozen (it stops reading and forwarding, every connection left open, as a
// partition or a frozen host does). Partner calls, mints and the console waited 74 s, the whole outage; now every
// call answers 503 server.database_unavailable with Retry-After, ended by the client-side reply deadline
// (DATABASE_QUERY_TIMEOUT_SECONDS plus a second, src/storage/reply-deadline.ts) that the app's log names, the
// connections it held are freed, and once the path answers again the app recovers by itself with nothing written
// before the freeze lost. How long the answers take is measured by bench/outage-deadlines.ts, not asserted here.
// Runs in both CI modes (it brings its own server); without the PostgreSQL binaries it fails, never skips.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { newSeededWorld } from "../support/client.js";
import { startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";
import { answerOf, type Answer } from "../support/sandbox.js";
import { startTcpForwarder, type TcpForwarder } from "../support/tcp-forwarder.js";
import { startTestApp, type TestApp, type World } from "../support/test-app.js";

const Silent = suite("storage/postgres-silent");
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 + 5_000);
/**
 * DATABASE_QUERY_TIMEOUT_SECONDS here (the reply deadline is one second more): shorter than the default to keep the
 * test short, long enough that a loaded CI machine's slow answers before the freeze are not taken for silence.
 */
const querySeconds = 4;
/** The reply deadline those settings give (src/storage/postgres.ts: the query timeout plus a second's margin). */
const replyDeadlineMs = querySeconds * 1000 + 1000;
let pg: PrivatePostgres | undefined;
let forwarder: TcpForwarder | undefined;
let test: TestApp | undefined;
let full: World;
let token: string;
let addresses = 0;

Silent.before(async () => {
  // uvu counts a failing hook as a failed test but prints nothing of it: say why, loudly.
  pg = await startPrivatePostgres().catch((error: unknown) => {
    console.error("storage/postgres-silent: cannot start a private PostgreSQL:", error);
    throw error;
  });
  forwarder = await startTcpForwarder("127.0.0.1", { host: "127.0.0.1", port: pg.port });
  const url = `postgres://postgres@127.0.0.1:${forwarder.port}/postgres`;
  test = await startTestApp({
    clock,
    redis: false,
    env: { DATABASE_URL: url, TRUST_PROXY: "127.0.0.1", DATABASE_QUERY_TIMEOUT_SECONDS: String(querySeconds) },
  });
  full = await newSeededWorld(test, clock, "https://app.example/callback");
  const minted = await mintToken();
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  token = minted.body["access_token"] as string;
});
Silent.after(async () => {
  forwarder?.thaw();
  await test?.stop();
  await forwarder?.close();
  await pg?.destroy();
});

const nextAddress = () => `203.0.113.${(++addresses % 250) + 1}`;

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
      body: JSON.stringify({ name: `Silent ${code}`, code, priceMinor: 100 }),
    }),
  );
}

/** Every item id of the world's merchant, page by page. */
async function itemIds(): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const answer = await partnerGet(`/v1/items?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    for (const item of answer.body["items"] as Array<{ id: string | number }>) ids.add(String(item.id));
    cursor = (answer.body["nextCursor"] as string | undefined) || undefined;
  } while (cursor);
  return ids;
}

/**
 * The errors of the app's "database unavailable" warnings since `from` (an index into its log), as logged. A call
 * the request deadline ended instead (15 s) would be a 504 without such a warning.
 */
function unavailableErrors(from: number): string[] {
  return test!.logs
    .slice(from)
    .map((line) => JSON.parse(line) as { msg?: string; error?: unknown })
    .filter((entry) => entry.msg === "database unavailable")
    .map((entry) => JSON.stringify(entry.error));
}

const unavailableMessage = messageFor("server.database_unavailable", { retryAfter: "5" });

Silent(
  "the path to PostgreSQL freezes: every call answers 503 with its code and Retry-After within the bound; it thaws: recovered, nothing lost",
  async () => {
    const before = await createItem("before-freeze");
    assert.is(before.status, 200, JSON.stringify(before.body));
    const beforeId = String((before.body["item"] as { id: string }).id);
    // Past every in-process cache (merchant routing, verified secrets): each answer needs the database. Then calls in
    // parallel, so that each pool holds several open connections when the path freezes: the calls below go to those
    // (a pool prefers an idle open connection), which is where they hung; a new connection was always bounded by
    // DATABASE_CONNECT_TIMEOUT_SECONDS.
    const pastCaches = () =>
      clock.advance(Math.max(test!.config.caches.gatewaySeconds, test!.config.caches.credentialSeconds) * 1000 + 1000);
    pastCaches();
    const warm = await Promise.all(
      Array.from({ length: 24 }, (_, n) => (n % 3 === 0 ? mintToken() : partnerGet("/v1/items"))),
    );
    for (const answer of warm) assert.is(answer.status, 200, JSON.stringify(answer.body));
    pastCaches();

    assert.is(test!.config.databaseTimeouts.querySeconds, querySeconds);
    const logsAtFreeze = test!.logs.length;
    forwarder!.freeze();
    const [items, write, minted] = await Promise.all([
      partnerGet("/v1/items"),
      createItem("during-freeze"),
      mintToken(),
    ]);
    for (const [answer, path] of [
      [items, "/v1/items"],
      [write, "/v1/items"],
    ] as const) {
      assert.is(answer.status, 503, JSON.stringify(answer.body));
      assert.is(answer.headers.get("retry-after"), "5");
      assert.is(answer.body["code"], "server.database_unavailable");
      assert.is(answer.body["path"], path);
      assert.is(answer.body["message"], unavailableMessage);
    }
    assert.is(minted.status, 503, JSON.stringify(minted.body));
    assert.is(minted.headers.get("retry-after"), "5");
    assert.equal(minted.body, {
      error: {
        code: "server.database_unavailable",
        message: unavailableMessage,
        details: [],
        params: { retryAfter: 5 },
      },
    });
    const firstRound = unavailableErrors(logsAtFreeze);
    assert.ok(firstRound.length >= 3, `${firstRound.length} warnings: ${firstRound.join(" | ")}`);
    // A second round: the connections the first round held were freed, and the pool does not wait on them.
    const again = await partnerGet("/v1/stores");
    assert.is(again.status, 503, JSON.stringify(again.body));
    assert.is(again.body["code"], "server.database_unavailable");
    // What freed the connections the pool held open when the path froze: the reply deadline, at the configured
    // length. The partner calls above may have found none of them idle (the queues' pollers hold pooled connections
    // too) and ended on a new connection's connect timeout instead; whichever caller held one, its error names the
    // deadline (a "database unavailable" warning, or a queue's or the request log's error).
    const replyDeadline = `PostgreSQL reply: no answer within ${replyDeadlineMs} ms`;
    const sinceFreeze = test!.logs.slice(logsAtFreeze);
    assert.ok(
      sinceFreeze.some((line) => line.includes(replyDeadline)),
      `no reply deadline of ${replyDeadlineMs} ms in the log since the freeze: ${firstRound.join(" | ")}`,
    );
    const ready = await fetch(`${test!.base}/readyz`);
    assert.is(ready.status, 503);
    await ready.body?.cancel();
    const live = await fetch(`${test!.base}/healthz`);
    assert.is(live.status, 200);
    await live.body?.cancel();
    const logs = test!.logs.join("\n");
    assert.not.match(logs, /"unexpected failure"/);

    forwarder!.thaw();
    const deadline = performance.now() + 30_000;
    for (;;) {
      const answer = await partnerGet("/v1/items?limit=100");
      if (answer.status === 200) {
        assert.ok((await itemIds()).has(beforeId), "the item written before the freeze is there");
        break;
      }
      assert.is(answer.status, 503, JSON.stringify(answer.body));
      assert.ok(performance.now() < deadline, "not recovered after the thaw");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.is((await mintToken()).status, 200);
  },
);

Silent.run();
