// POST /v1/oauth/token and /v1/oauth/revoke against the real app: exact bodies and headers, single-use codes under
// twenty parallel exchanges, refresh rotation under twenty parallel refreshes, the grace window, reuse detection,
// expiry, the secret overlap, revocation, merchant disconnect and the invalid_grant slowdown. Time moves on the
// injected manual clock; the key-value store is the in-process one on that clock (Redis keeps real time).
import { createHash } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { messageFor, type ErrorCode } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { cryptoIds } from "../../src/runtime/ids.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { createInProcessClient } from "../../src/runtime/service-caller.js";
import { createGrantService } from "../../src/grant/service.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { sample } from "../support/metrics.js";
import { credentialServiceOf, decide, newWorld, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Token = suite("token/token-endpoint");
const clock = createManualClock(Date.now());
const second = 1000;
const day = 86_400 * second;
const invalidGrantLimit = 25;
let test: TestApp;

Token.before(async () => {
  // The slowdown limit sits above the nineteen invalid_grant answers of the parallel-exchange test (all for one
  // code), which would otherwise race the slowdown: some of the twenty calls are admitted after others were counted.
  test = await startTestApp({
    clock,
    redis: false,
    env: { OAUTH_INVALID_GRANT_LIMIT: String(invalidGrantLimit), OAUTH_TOKEN_ADDRESS_RATE_LIMIT: "100000" },
  });
});
Token.after(async () => {
  await test.stop();
});

const verifier = "v".repeat(43) + "-._~0123456789";
const challenge = createHash("sha256").update(verifier).digest("base64url");

async function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(test.base + path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

const tokenCall = (world: World, fields: Record<string, string>) =>
  post("/v1/oauth/token", { client_id: world.clientId, client_secret: world.clientSecret, ...fields });

async function codeFor(
  world: World,
  extra: Record<string, string> = { code_challenge: challenge, code_challenge_method: "S256" },
) {
  const location = await decide(test, world, { extra });
  return location.searchParams.get("code")!;
}

async function exchange(world: World) {
  const code = await codeFor(world);
  const answer = await tokenCall(world, {
    grant_type: "authorization_code",
    code,
    redirect_uri: world.redirectUri,
    code_verifier: verifier,
  });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as { access_token: string; refresh_token: string };
}

const refresh = (world: World, token: string) =>
  tokenCall(world, { grant_type: "refresh_token", refresh_token: token });

function oauthError(code: ErrorCode, error: string) {
  return { error, error_description: messageFor(code), code };
}

/** The GrantService on the app's database and clock, called in process. */
const grantServiceOf = () =>
  createInProcessClient(
    GrantService,
    createGrantService(
      { config: test.config, clock, ids: cryptoIds, logger: silentLogger },
      { sql: test.app.control.sql },
    ),
  );

let worlds = 0;
const world = () => newWorld(test, clock, `http://127.0.0.1:9/callback/${++worlds}?x=1`);

Token(
  "code exchange: 200 with exactly the spec's fields and types, no-store, an at+jwt with the spec's claims",
  async () => {
    const w = await world();
    const location = await decide(test, w, { extra: { code_challenge: challenge, code_challenge_method: "S256" } });
    assert.is(location.origin + location.pathname, "http://127.0.0.1:9/callback/" + worlds);
    assert.is(location.searchParams.get("x"), "1");
    assert.is(location.searchParams.get("state"), "st-1");
    assert.is(location.searchParams.get("merchant_id"), String(w.companyId));
    const answer = await tokenCall(w, {
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: w.redirectUri,
      code_verifier: verifier,
    });
    assert.is(answer.status, 200);
    assert.is(answer.headers.get("cache-control"), "no-store");
    assert.is(answer.headers.get("pragma"), "no-cache");
    const body = answer.body;
    assert.equal(Object.keys(body).sort(), [
      "access_token",
      "api_base_url",
      "expires_in",
      "merchant_id",
      "refresh_token",
      "refresh_token_expires_in",
      "scope",
      "token_type",
    ]);
    assert.is(body["token_type"], "Bearer");
    assert.is(body["expires_in"], 900);
    assert.is(body["refresh_token_expires_in"], 8640000);
    assert.is(
      body["scope"],
      "stores.read items.read items.write categories.read categories.write orders.read reports.read",
    );
    assert.is(body["merchant_id"], w.companyId);
    assert.is(body["api_base_url"], `${test.base}/v1/`);
    assert.match(body["refresh_token"] as string, /^lp_rt_sb_[A-Za-z0-9_-]{43}$/);
    const [header, payload] = (body["access_token"] as string)
      .split(".")
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, "base64url").toString() || "{}"));
    assert.is(header.typ, "at+jwt");
    assert.is(header.alg, "RS256");
    const jwks = (await (await fetch(`${test.base}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    assert.ok(jwks.keys.some((key) => key.kid === header.kid));
    const now = Math.floor(clock.now() / 1000);
    assert.equal(payload, {
      iss: `${test.base}/`,
      aud: "partnerapi-app",
      sub: w.appId,
      client_id: w.clientId,
      orgId: w.organizationId,
      companyId: w.companyId,
      region: "uk",
      product: "FULL",
      scopes: [
        "stores.read",
        "items.read",
        "items.write",
        "categories.read",
        "categories.write",
        "orders.read",
        "reports.read",
      ],
      env: "SANDBOX",
      jti: payload.jti,
      iat: now,
      exp: now + 900,
    });
    // The refresh token is stored only as its SHA-256.
    const hash = createHash("sha256")
      .update(body["refresh_token"] as string)
      .digest();
    const rows = await test.app.control.sql`select 1 from control.refresh_tokens where token_hash = ${hash}`;
    assert.is(rows.length, 1);
  },
);

Token(
  "twenty parallel exchanges of one code: exactly one 200, nineteen oauth.code_invalid (and the replays revoke its family)",
  async () => {
    const w = await world();
    const code = await codeFor(w);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        tokenCall(w, { grant_type: "authorization_code", code, redirect_uri: w.redirectUri, code_verifier: verifier }),
      ),
    );
    assert.is(answers.filter((answer) => answer.status === 200).length, 1);
    const failures = answers.filter((answer) => answer.status !== 200);
    assert.is(failures.length, 19);
    for (const failure of failures) {
      assert.is(failure.status, 400);
      assert.equal(failure.body, oauthError("oauth.code_invalid", "invalid_grant"));
    }
  },
);

/** The refresh family a code issued, as stored (the family knows its code: refresh_families.code_hash). */
const familyOfCode = async (code: string) =>
  (
    await test.app.control.sql<{ revoked_at: Date | null; revoked_reason: string | null }[]>`
    select revoked_at, revoked_reason from control.refresh_families where code_hash = ${createHash("sha256").update(code).digest()}`
  )[0];

Token(
  "RFC 6749 §4.1.2: a second exchange of a consumed code is invalid_grant and revokes the family the first issued",
  async () => {
    const w = await world();
    const code = await codeFor(w);
    const exchangeCode = () =>
      tokenCall(w, { grant_type: "authorization_code", code, redirect_uri: w.redirectUri, code_verifier: verifier });
    const first = await exchangeCode();
    assert.is(first.status, 200);
    const firstToken = first.body["refresh_token"] as string;
    const rotated = await refresh(w, firstToken);
    assert.is(rotated.status, 200, "the family works until the replay");
    const current = rotated.body["refresh_token"] as string;
    clock.advance(10 * second);
    const replay = await exchangeCode();
    assert.is(replay.status, 400);
    assert.equal(replay.body, oauthError("oauth.code_invalid", "invalid_grant"));
    assert.equal(await familyOfCode(code), { revoked_at: new Date(clock.now()), revoked_reason: "code_replayed" });
    // Every token of the family ends, the current one and the previous one (which would otherwise get grace).
    for (const token of [current, firstToken]) {
      const answer = await refresh(w, token);
      assert.is(answer.status, 400);
      assert.equal(answer.body, oauthError("oauth.code_replayed", "invalid_grant"));
    }
    // A third presentation answers the same and changes nothing.
    assert.equal((await exchangeCode()).body, oauthError("oauth.code_invalid", "invalid_grant"));
    assert.equal((await familyOfCode(code))!.revoked_reason, "code_replayed");
    // Another connection of the same app and merchant (another family under the same grant) is untouched.
    const other = await exchange(w);
    assert.is((await refresh(w, other.refresh_token)).status, 200);
  },
);

Token(
  "two parallel exchanges of one code: exactly one succeeds, and the other's replay revokes its family",
  async () => {
    const w = await world();
    const code = await codeFor(w);
    const answers = await Promise.all(
      [0, 1].map(() =>
        tokenCall(w, { grant_type: "authorization_code", code, redirect_uri: w.redirectUri, code_verifier: verifier }),
      ),
    );
    assert.equal(answers.map((answer) => answer.status).sort(), [200, 400]);
    const winner = answers.find((answer) => answer.status === 200)!;
    assert.equal(
      answers.find((answer) => answer.status === 400)!.body,
      oauthError("oauth.code_invalid", "invalid_grant"),
    );
    assert.is((await familyOfCode(code))!.revoked_reason, "code_replayed");
    assert.equal(
      (await refresh(w, winner.body["refresh_token"] as string)).body,
      oauthError("oauth.code_replayed", "invalid_grant"),
    );
  },
);

Token(
  "only the code's own client replays it: another client's exchange, a failed check or an unknown code revokes nothing",
  async () => {
    const w = await world();
    const other = await world();
    const code = await codeFor(w);
    // A failed check (wrong verifier) before the exchange does not consume, so it is no replay.
    assert.equal(
      (
        await tokenCall(w, {
          grant_type: "authorization_code",
          code,
          redirect_uri: w.redirectUri,
          code_verifier: "w".repeat(43),
        })
      ).body,
      oauthError("oauth.pkce_failed", "invalid_grant"),
    );
    const first = await tokenCall(w, {
      grant_type: "authorization_code",
      code,
      redirect_uri: w.redirectUri,
      code_verifier: verifier,
    });
    assert.is(first.status, 200);
    const stolen = await tokenCall(other, {
      grant_type: "authorization_code",
      code,
      redirect_uri: w.redirectUri,
      code_verifier: verifier,
    });
    assert.equal(stolen.body, oauthError("oauth.code_invalid", "invalid_grant"));
    assert.equal(await familyOfCode(code), { revoked_at: null, revoked_reason: null });
    assert.is((await refresh(w, first.body["refresh_token"] as string)).status, 200);
  },
);

Token(
  "code failures: redirect_uri, PKCE, unknown, expiry on the clock; a failed check does not consume the code",
  async () => {
    const w = await world();
    const code = await codeFor(w);
    const exchangeWith = (fields: Record<string, string>) =>
      tokenCall(w, { grant_type: "authorization_code", code, redirect_uri: w.redirectUri, ...fields });
    assert.equal(
      (await exchangeWith({ redirect_uri: w.redirectUri + "/", code_verifier: verifier })).body,
      oauthError("oauth.redirect_uri_mismatch", "invalid_grant"),
    );
    assert.equal((await exchangeWith({})).body, oauthError("oauth.pkce_failed", "invalid_grant"));
    assert.equal(
      (await exchangeWith({ code_verifier: "w".repeat(43) })).body,
      oauthError("oauth.pkce_failed", "invalid_grant"),
    );
    assert.equal(
      (await exchangeWith({ code: "nope".repeat(11), code_verifier: verifier })).body,
      oauthError("oauth.code_invalid", "invalid_grant"),
    );
    // A code issued without a challenge refuses a verifier (PKCE downgrade).
    const plain = await codeFor(w, {});
    const downgrade = await tokenCall(w, {
      grant_type: "authorization_code",
      code: plain,
      redirect_uri: w.redirectUri,
      code_verifier: verifier,
    });
    assert.equal(downgrade.body, oauthError("oauth.pkce_failed", "invalid_grant"));
    assert.is(
      (await tokenCall(w, { grant_type: "authorization_code", code: plain, redirect_uri: w.redirectUri })).status,
      200,
    );
    // Five minutes: valid at 299.999 s, expired at 300 s.
    clock.advance(300 * second - 1);
    const late = await codeFor(w);
    clock.advance(300 * second);
    assert.equal(
      (await exchangeWith({ code: late, code_verifier: verifier })).body,
      oauthError("oauth.code_expired", "invalid_grant"),
    );
    // The original code was never consumed by the failures, but it has expired too by now.
    assert.equal(
      (await exchangeWith({ code_verifier: verifier })).body,
      oauthError("oauth.code_expired", "invalid_grant"),
    );
  },
);

Token(
  "client and grant-type failures: invalid_client 401 with WWW-Authenticate, unsupported grant; client_credentials is a grant (test/token/sandbox-tokens.test.ts)",
  async () => {
    const w = await world();
    const bad = await post("/v1/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: "x",
      client_id: w.clientId,
      client_secret: "lp_sk_sb_" + "A".repeat(43),
    });
    assert.is(bad.status, 401);
    assert.is(bad.headers.get("www-authenticate"), "Basic");
    assert.equal(bad.body, oauthError("developer.invalid_client", "invalid_client"));
    const unsupported = await tokenCall(w, { grant_type: "password" });
    assert.is(unsupported.status, 400);
    assert.equal(unsupported.body, oauthError("oauth.unsupported_grant_type", "unsupported_grant_type"));
    const cc = await tokenCall(w, { grant_type: "client_credentials" });
    assert.is(cc.status, 200);
    assert.is(cc.body["merchant_id"], w.companyId);
    const missing = await tokenCall(w, { grant_type: "refresh_token" });
    assert.is(missing.status, 400);
    assert.equal(missing.body, {
      error: "invalid_request",
      error_description: messageFor("oauth.invalid_request", { fields: "refresh_token" }),
      code: "oauth.invalid_request",
    });
    // Basic authentication works as well as the body.
    const basic = Buffer.from(`${encodeURIComponent(w.clientId)}:${encodeURIComponent(w.clientSecret)}`).toString(
      "base64",
    );
    const viaBasic = await post(
      "/v1/oauth/token",
      { grant_type: "refresh_token", refresh_token: "lp_rt_sb_" + "B".repeat(43) },
      { authorization: `Basic ${basic}` },
    );
    assert.equal(viaBasic.body, oauthError("oauth.refresh_invalid", "invalid_grant"));
  },
);

Token(
  "twenty parallel refreshes of one token: all answered with the same successor, one live token after",
  async () => {
    const w = await world();
    const first = await exchange(w);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(w, first.refresh_token)));
    for (const answer of answers) assert.is(answer.status, 200, JSON.stringify(answer.body));
    const successors = new Set(answers.map((answer) => answer.body["refresh_token"]));
    assert.is(successors.size, 1);
    const successor = [...successors][0] as string;
    assert.is.not(successor, first.refresh_token);
    const hash = createHash("sha256").update(first.refresh_token).digest();
    const live = await test.app.control.sql`
    select count(*)::int as count from control.refresh_tokens
    where family_id = (select family_id from control.refresh_tokens where token_hash = ${hash}) and rotated_at is null`;
    assert.is(live[0]!["count"], 1);
    const next = await refresh(w, successor);
    assert.is(next.status, 200);
  },
);

Token(
  "a deactivated merchant: its refresh is developer.merchant_inactive and burns nothing; once active again the same token rotates",
  async () => {
    const w = await world();
    const first = await exchange(w);
    await test.app.control.sql`update control.merchants set active = false where company_id = ${w.companyId}`;
    try {
      const refused = await refresh(w, first.refresh_token);
      assert.is(refused.status, 400);
      assert.equal(refused.body, oauthError("developer.merchant_inactive", "invalid_grant"));
    } finally {
      await test.app.control.sql`update control.merchants set active = true where company_id = ${w.companyId}`;
    }
    const hash = createHash("sha256").update(first.refresh_token).digest();
    const [row] = await test.app.control.sql`select rotated_at from control.refresh_tokens where token_hash = ${hash}`;
    assert.is(row!["rotated_at"], null, "the refused refresh rotated nothing");
    const next = await refresh(w, first.refresh_token);
    assert.is(next.status, 200, JSON.stringify(next.body));
    assert.is.not(next.body["refresh_token"], first.refresh_token);
  },
);

Token(
  "grace: the previous token replays its successor inside the window; after it, reuse revokes the family",
  async () => {
    const w = await world();
    const before = await test.app.metrics.registry.metrics();
    const first = await exchange(w);
    const second_ = (await refresh(w, first.refresh_token)).body["refresh_token"] as string;
    clock.advance(59 * second);
    const replay = await refresh(w, first.refresh_token);
    assert.is(replay.status, 200);
    assert.is(replay.body["refresh_token"], second_);
    clock.advance(2 * second); // 61 s after the rotation: the grace window (60 s) is over
    const late = await refresh(w, first.refresh_token);
    assert.is(late.status, 400);
    assert.equal(late.body, oauthError("oauth.refresh_reused", "invalid_grant"));
    // The successor stops working: the family is revoked for good.
    assert.equal((await refresh(w, second_)).body, oauthError("oauth.refresh_reused", "invalid_grant"));
    // Metrics (issue 17): one code exchange and two refresh answers minted; one reuse detected, one family revoked.
    const after = await test.app.metrics.registry.metrics();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    assert.equal(
      [
        delta("partnerapi_tokens_minted_total", { grant_type: "authorization_code" }),
        delta("partnerapi_tokens_minted_total", { grant_type: "refresh_token" }),
        delta("partnerapi_refresh_reuse_detections_total"),
        delta("partnerapi_refresh_family_revocations_total", { reason: "refresh_reused" }),
      ],
      [1, 2, 1, 1],
    );
  },
);

Token("grace is for the immediately previous token only, and only while its successor is unused", async () => {
  const w = await world();
  const t1 = (await exchange(w)).refresh_token;
  const t2 = (await refresh(w, t1)).body["refresh_token"] as string;
  const t3 = (await refresh(w, t2)).body["refresh_token"] as string;
  // t1's successor (t2) was used: no grace for t1 even inside the window.
  assert.equal((await refresh(w, t1)).body, oauthError("oauth.refresh_reused", "invalid_grant"));
  assert.equal((await refresh(w, t3)).body, oauthError("oauth.refresh_reused", "invalid_grant"));
});

Token("refresh expiry: 100 days of disuse (rolling); each use restarts the clock", async () => {
  const w = await world();
  let token = (await exchange(w)).refresh_token;
  clock.advance(100 * day - second);
  const kept = await refresh(w, token);
  assert.is(kept.status, 200);
  token = kept.body["refresh_token"] as string;
  clock.advance(100 * day);
  assert.equal((await refresh(w, token)).body, oauthError("oauth.refresh_expired", "invalid_grant"));
});

Token(
  "secret rotation: the previous secret works during the 24-hour overlap, not after; refresh tokens survive",
  async () => {
    const w = await world();
    const token = (await exchange(w)).refresh_token;
    const rotated = await credentialServiceOf(test, clock).rotateClientSecret({ clientId: w.clientId });
    clock.advance(day - second);
    const old = await refresh(w, token);
    assert.is(old.status, 200);
    clock.advance(second);
    const expired = await refresh(w, old.body["refresh_token"] as string);
    assert.is(expired.status, 401);
    assert.equal(expired.body, oauthError("developer.invalid_client", "invalid_client"));
    const fresh = await refresh({ ...w, clientSecret: rotated.clientSecret! }, old.body["refresh_token"] as string);
    assert.is(fresh.status, 200);
  },
);

Token("revocation: 200 {ok:true} for anything once authenticated; a live token revokes family and grant", async () => {
  const w = await world();
  const other = await world();
  const token = (await exchange(w)).refresh_token;
  const revoke = (fields: Record<string, string>, who = w) =>
    post("/v1/oauth/revoke", { client_id: who.clientId, client_secret: who.clientSecret, ...fields });
  for (const probe of ["nonsense", "lp_rt_sb_" + "C".repeat(43), "lp_rt_pk_" + "C".repeat(43)]) {
    const answer = await revoke({ token: probe });
    assert.is(answer.status, 200);
    assert.equal(answer.body, { ok: true });
  }
  // Another client's token: ok, and nothing happens to it.
  assert.equal((await revoke({ token }, other)).body, { ok: true });
  assert.is((await refresh(w, token)).status, 200, "the other client's revoke changed nothing");
  const live = (await refresh(w, (await refresh(w, token)).body["refresh_token"] as string)).body[
    "refresh_token"
  ] as string;
  const done = await revoke({ token: live });
  assert.equal(done.body, { ok: true });
  assert.equal((await refresh(w, live)).body, oauthError("oauth.grant_revoked", "invalid_grant"));
  assert.equal((await revoke({ token: live })).body, { ok: true });
  const bad = await post("/v1/oauth/revoke", {
    token: live,
    client_id: w.clientId,
    client_secret: "lp_sk_sb_" + "D".repeat(43),
  });
  assert.is(bad.status, 401);
  assert.equal(bad.body, oauthError("developer.invalid_client", "invalid_client"));
  const json = await fetch(`${test.base}/v1/oauth/revoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: "x", client_id: w.clientId, client_secret: w.clientSecret }),
  });
  assert.is(json.status, 200);
  assert.equal(await json.json(), { ok: true });
});

Token(
  "merchant disconnect (GrantService.RevokeGrant): listed before, gone after; the next refresh is oauth.grant_revoked",
  async () => {
    const w = await world();
    const token = (await exchange(w)).refresh_token;
    const grants = grantServiceOf();
    const listed = await grants.listGrants({ companyId: BigInt(w.companyId) });
    assert.ok(listed.grants.some((grant) => grant.appId === w.appId));
    const revoked = await grants.revokeGrant({ companyId: BigInt(w.companyId), appId: w.appId });
    assert.is(revoked.revoked, true);
    const again = await grants.revokeGrant({ companyId: BigInt(w.companyId), appId: w.appId });
    assert.is(again.revoked, false);
    assert.equal((await refresh(w, token)).body, oauthError("oauth.grant_revoked", "invalid_grant"));
    const after = await grants.listGrants({ companyId: BigInt(w.companyId) });
    assert.not.ok(after.grants.some((grant) => grant.appId === w.appId));
  },
);

/** The refresh families of an app and merchant, oldest first, as stored. */
const familiesOf = (w: World) =>
  test.app.control.sql<{ revoked_at: Date | null; revoked_reason: string | null }[]>`
    select revoked_at, revoked_reason from control.refresh_families
    where app_id = ${w.appId} and company_id = ${w.companyId} order by id`;

Token(
  "a family lives only while its grant does: a disconnect ends every family and the grace replay, a new consent starts afresh",
  async () => {
    const w = await world();
    const firstFamily = (await exchange(w)).refresh_token;
    const secondFamily = (await exchange(w)).refresh_token; // a second family under the same grant
    const rotated = await refresh(w, secondFamily);
    assert.is(rotated.status, 200);
    await grantServiceOf().revokeGrant({ companyId: BigInt(w.companyId), appId: w.appId });
    // Inside the grace window the rotated-out token would replay its successor; the grant's end comes first.
    for (const token of [firstFamily, secondFamily, rotated.body["refresh_token"] as string]) {
      const answer = await refresh(w, token);
      assert.is(answer.status, 400);
      assert.equal(answer.body, oauthError("oauth.grant_revoked", "invalid_grant"));
    }
    // The disconnect wrote the grant only; the families end with it (the token owner's rows are its own).
    assert.equal(
      (await familiesOf(w)).map((family) => family.revoked_reason),
      [null, null],
    );
    const renewed = (await exchange(w)).refresh_token;
    assert.is((await refresh(w, renewed)).status, 200, "a new consent makes a new grant and a live family");
    assert.equal(
      (await refresh(w, firstFamily)).body,
      oauthError("oauth.grant_revoked", "invalid_grant"),
      "the old family stays dead",
    );
  },
);

Token(
  "RFC 7009 revocation of one refresh token ends every family of its grant, in the token owner's rows",
  async () => {
    const w = await world();
    const firstFamily = (await exchange(w)).refresh_token;
    const secondFamily = (await exchange(w)).refresh_token;
    const done = await post("/v1/oauth/revoke", {
      token: firstFamily,
      client_id: w.clientId,
      client_secret: w.clientSecret,
    });
    assert.is(done.status, 200);
    assert.equal(done.body, { ok: true });
    assert.equal((await refresh(w, secondFamily)).body, oauthError("oauth.grant_revoked", "invalid_grant"));
    const families = await familiesOf(w);
    assert.equal(
      families.map((family) => family.revoked_reason),
      ["app_revoked", "app_revoked"],
    );
    assert.ok(families.every((family) => family.revoked_at !== null));
  },
);

Token(
  "IP allowlist at /v1/oauth/token and /v1/oauth/revoke: from an unlisted address 401 invalid_client oauth.ip_denied; from a listed one everything works",
  async () => {
    const w = await world();
    const tokens = await exchange(w);
    const code = await codeFor(w);
    const credentials = credentialServiceOf(test, clock);
    // This test's calls come from 127.0.0.1. The app's CredentialService caches a verification for 5 s.
    const allow = async (allowedIps: string[]) => {
      await credentials.setIpAllowlist({ clientId: w.clientId, allowedIps });
      clock.advance(5 * second);
    };
    await allow(["10.0.0.0/8", "2001:db8::/32"]);
    const denied = oauthError("oauth.ip_denied", "invalid_client");
    const calls = {
      refresh: () => refresh(w, tokens.refresh_token),
      exchange: () =>
        tokenCall(w, { grant_type: "authorization_code", code, redirect_uri: w.redirectUri, code_verifier: verifier }),
      client_credentials: () => tokenCall(w, { grant_type: "client_credentials" }),
      revoke: () =>
        post("/v1/oauth/revoke", { token: tokens.refresh_token, client_id: w.clientId, client_secret: w.clientSecret }),
    };
    for (const [name, call] of Object.entries(calls)) {
      const answer = await call();
      assert.is(answer.status, 401, name);
      assert.is(answer.headers.get("www-authenticate"), "Basic", name);
      assert.is(answer.headers.get("cache-control"), "no-store", name);
      assert.equal(answer.body, denied, name);
    }
    // A wrong secret is invalid_client as ever: the list is told only to whoever holds the secret.
    const wrong = await post("/v1/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: w.clientId,
      client_secret: "lp_sk_sb_" + "F".repeat(43),
    });
    assert.equal(wrong.body, oauthError("developer.invalid_client", "invalid_client"));
    // Nothing was consumed or revoked by the refused calls.
    await allow(["127.0.0.1", "10.0.0.0/8"]);
    const exchanged = await calls.exchange();
    assert.is(exchanged.status, 200, JSON.stringify(exchanged.body));
    assert.is((await calls.client_credentials()).status, 200);
    const refreshed = await calls.refresh();
    assert.is(refreshed.status, 200, JSON.stringify(refreshed.body));
    const revoked = await post("/v1/oauth/revoke", {
      token: refreshed.body["refresh_token"] as string,
      client_id: w.clientId,
      client_secret: w.clientSecret,
    });
    assert.equal(revoked.body, { ok: true });
    assert.equal(
      (await refresh(w, refreshed.body["refresh_token"] as string)).body,
      oauthError("oauth.grant_revoked", "invalid_grant"),
    );
    // Removing the list allows every address again (a new consent: the revocation ended the grant).
    await allow([]);
    await exchange(w);
  },
);

Token(
  "invalid_grant counts per presented token: 25 distinct dead tokens leave the client's live refreshes alone; one dead token retried 25 times is slowed",
  async () => {
    clock.set(Math.ceil(Math.max(clock.now(), Date.now()) / 600_000) * 600_000 + 1000); // the start of a 10-minute window, not in the real past (Redis expires windows by the wall clock)
    const w = await world();
    const live = await exchange(w);
    // A partner whose merchants disconnected: one invalid_grant per dead token, none retried.
    for (let i = 0; i < invalidGrantLimit; i++) {
      const token = "lp_rt_sb_" + String(i).padStart(2, "0") + "F".repeat(41);
      assert.equal((await refresh(w, token)).body, oauthError("oauth.refresh_invalid", "invalid_grant"));
    }
    const refreshed = await refresh(w, live.refresh_token);
    assert.is(refreshed.status, 200, JSON.stringify(refreshed.body));
    // One dead token retried: slowed once it has had invalidGrantLimit answers, to two calls a minute.
    const dead = "lp_rt_sb_" + "E".repeat(43);
    for (let i = 0; i < invalidGrantLimit; i++)
      assert.equal((await refresh(w, dead)).body, oauthError("oauth.refresh_invalid", "invalid_grant"));
    assert.is((await refresh(w, dead)).status, 400);
    assert.is((await refresh(w, dead)).status, 400);
    const limited = await refresh(w, dead);
    assert.is(limited.status, 429);
    assert.is(limited.headers.get("retry-after"), "59");
    assert.equal(limited.body, {
      error: "invalid_request",
      error_description: messageFor("oauth.rate_limited", { retryAfter: 59 }),
      code: "oauth.rate_limited",
    });
    // The client's live connection is not slowed with it.
    assert.is((await refresh(w, refreshed.body["refresh_token"] as string)).status, 200);
    clock.advance(60 * second); // a new minute: the slowed token gets two calls again
    assert.is((await refresh(w, dead)).status, 400);
    assert.is((await refresh(w, dead)).status, 400);
    assert.is((await refresh(w, dead)).status, 429);
    clock.advance(10 * 60 * second);
    for (let i = 0; i < 3; i++) assert.is((await refresh(w, dead)).status, 400, "a new window: no longer slowed");
  },
);

Token.run();
