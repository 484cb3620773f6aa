// DPoP end to end (issue 40, RFC 9449) over real ports, with oauth4webapi's DPoP as partners use it: a sandbox mint
// at /v1/oauth/token (client_credentials) and at POST /v1/token bound to the client's key (token_type DPoP, cnf.jkt),
// partner calls with proofs, and the refusals, each with its status, code and challenge: the bound token as Bearer,
// a replayed proof, wrong htm, htu and ath, an old iat, another key's proof; a code exchanged with a proof starts a
// bound family that refreshes with that key only. The replay cache is the app's shared store (Redis when
// TEST_REDIS_URL is set). A partner call admitted by the gateway ends at the unprovisioned merchant's region (503
// company.not_provisioned); a call the gateway refused is 401.
import { randomUUID } from "node:crypto";
import * as oauth from "oauth4webapi";
import { SignJWT, calculateJwkThumbprint, exportJWK, type CryptoKey, type JWK } from "jose";
import * as assert from "uvu/assert";
import { suite } from "../support/suite.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { accessTokenHash, dpopProofWindowSeconds } from "../../src/token/dpop-proof.js";
import { credentialServiceOf, decide, newWorld, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Dpop = suite("token/dpop-clients");
const clock = createManualClock(Date.now());
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const admitted = "503 company.not_provisioned";
const algs = "ES256 ES384 PS256 RS256 EdDSA";
let test: TestApp;
let as: oauth.AuthorizationServer;
let worlds = 0;

Dpop.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { OAUTH_TOKEN_ADDRESS_RATE_LIMIT: "100000" } });
  const issuer = new URL(`${test.base}/`);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
});
Dpop.after(async () => {
  await test.stop();
});

/**
 * oauth4webapi's client, its proofs' iat on the app's manual clock (oauth4webapi's clockSkew: seconds added to its
 * own clock), so a slow machine never makes them look older or newer than they are.
 */
const clientOf = (w: World): oauth.Client => ({
  client_id: w.clientId,
  [oauth.clockSkew]: Math.round((clock.now() - Date.now()) / 1000),
});

const world = () => newWorld(test, clock, `http://127.0.0.1:9/callback/dpop-${++worlds}`);
const keyPair = () => oauth.generateKeyPair("ES256", { extractable: true });

/** A proof made by hand with `pair`, for the refusals oauth4webapi would never make; any claim may be replaced. */
async function proof(pair: oauth.CryptoKeyPair, claims: Record<string, unknown>): Promise<string> {
  const jwk: JWK = await exportJWK(pair.publicKey as CryptoKey);
  return new SignJWT({ jti: randomUUID(), iat: Math.floor(clock.now() / 1000), ...claims })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
    .sign(pair.privateKey as CryptoKey);
}

/** A sandbox client_credentials token bound to `pair`, through oauth4webapi. */
async function mint(w: World, pair: oauth.CryptoKeyPair) {
  const client = clientOf(w);
  const DPoP = oauth.DPoP(client, pair);
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(w.clientSecret),
    {},
    { DPoP, ...insecure },
  );
  return oauth.processClientCredentialsResponse(as, client, response);
}

/** GET /v1/items with these headers: "status code". */
async function items(headers: Record<string, string>) {
  const answer = await fetch(`${test.base}/v1/items`, { headers });
  const body = (await answer.json()) as { code?: string };
  return { outcome: `${answer.status} ${body.code}`, challenge: answer.headers.get("www-authenticate") };
}

const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

Dpop(
  "oauth4webapi: a client_credentials token is DPoP-bound to its key, and its protected calls are admitted",
  async () => {
    const w = await world();
    const pair = await keyPair();
    const tokens = await mint(w, pair);
    assert.is(tokens.token_type, "dpop");
    const jkt = await calculateJwkThumbprint(await exportJWK(pair.publicKey as CryptoKey), "sha256");
    assert.equal(payloadOf(tokens.access_token)["cnf"], { jkt });
    const DPoP = oauth.DPoP(clientOf(w), pair);
    for (let call = 0; call < 2; call++) {
      const answer = await oauth.protectedResourceRequest(
        tokens.access_token,
        "GET",
        new URL(`${test.base}/v1/items?companyId=${w.companyId}`),
        undefined,
        undefined,
        { DPoP, ...insecure },
      );
      assert.is(`${answer.status} ${((await answer.json()) as { code: string }).code}`, admitted);
    }
  },
);

Dpop("a bound token sent as Bearer is refused: 401 partner.dpop_bound_token, DPoP invalid_token", async () => {
  const tokens = await mint(await world(), await keyPair());
  const answer = await items({ authorization: `Bearer ${tokens.access_token}` });
  assert.equal(answer, {
    outcome: "401 partner.dpop_bound_token",
    challenge: `DPoP error="invalid_token", algs="${algs}"`,
  });
});

Dpop("refused proofs: replayed, wrong htm, htu or ath, an old iat, another key's, none", async () => {
  const pair = await keyPair();
  const tokens = await mint(await world(), pair);
  const token = tokens.access_token;
  const htu = `${test.base}/v1/items`;
  const ath = accessTokenHash(token);
  const call = (dpop?: string) => items({ authorization: `DPoP ${token}`, ...(dpop ? { dpop } : {}) });
  const refused = {
    outcome: "401 partner.dpop_proof_invalid",
    challenge: `DPoP error="invalid_dpop_proof", algs="${algs}"`,
  };
  const good = await proof(pair, { htm: "GET", htu, ath });
  assert.is((await call(good)).outcome, admitted);
  assert.equal(await call(good), refused, "replayed");
  assert.equal(await call(await proof(pair, { htm: "POST", htu, ath })), refused, "htm");
  assert.equal(await call(await proof(pair, { htm: "GET", htu: `${test.base}/v1/orders`, ath })), refused, "htu");
  const otherAth = accessTokenHash(`${token}x`);
  assert.equal(await call(await proof(pair, { htm: "GET", htu, ath: otherAth })), refused, "ath");
  const iat = Math.floor(clock.now() / 1000) - dpopProofWindowSeconds - 1;
  assert.equal(await call(await proof(pair, { htm: "GET", htu, ath, iat })), refused, "old iat");
  assert.equal(await call(await proof(await keyPair(), { htm: "GET", htu, ath })), refused, "another key");
  assert.equal(await call(), refused, "no proof");
});

Dpop("parallel calls with one proof: exactly one is admitted", async () => {
  const pair = await keyPair();
  const token = (await mint(await world(), pair)).access_token;
  const dpop = await proof(pair, { htm: "GET", htu: `${test.base}/v1/items`, ath: accessTokenHash(token) });
  const outcomes = await Promise.all(
    Array.from({ length: 8 }, async () => (await items({ authorization: `DPoP ${token}`, dpop })).outcome),
  );
  assert.is(outcomes.filter((outcome) => outcome === admitted).length, 1, outcomes.join(", "));
  assert.is(outcomes.filter((outcome) => outcome === "401 partner.dpop_proof_invalid").length, 7);
});

Dpop("an unbound (Bearer) token sent as DPoP is refused: 401 partner.dpop_token_unbound", async () => {
  const w = await world();
  const minted = await fetch(`${test.base}/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant_type: "client_credentials", client_id: w.clientId, client_secret: w.clientSecret }),
  });
  const body = (await minted.json()) as { access_token: string; token_type: string };
  assert.is(body.token_type, "Bearer");
  assert.is((await items({ authorization: `Bearer ${body.access_token}` })).outcome, admitted);
  const pair = await keyPair();
  const dpop = await proof(pair, { htm: "GET", htu: `${test.base}/v1/items`, ath: accessTokenHash(body.access_token) });
  assert.equal(await items({ authorization: `DPoP ${body.access_token}`, dpop }), {
    outcome: "401 partner.dpop_token_unbound",
    challenge: `DPoP error="invalid_token", algs="${algs}"`,
  });
});

Dpop("POST /v1/token with a proof mints a DPoP token; a bad proof is 400 developer.dpop_proof_invalid", async () => {
  const w = await world();
  const pair = await keyPair();
  const sandboxMint = async (dpop: string) => {
    const answer = await fetch(`${test.base}/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/json", dpop },
      body: JSON.stringify({ grant_type: "client_credentials", client_id: w.clientId, client_secret: w.clientSecret }),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  const good = await sandboxMint(await proof(pair, { htm: "POST", htu: `${test.base}/v1/token` }));
  assert.is(good.status, 200);
  assert.is(good.body["token_type"], "DPoP");
  const token = good.body["access_token"] as string;
  const dpop = await proof(pair, { htm: "POST", htu: `${test.base}/v1/items`, ath: accessTokenHash(token) });
  // A proof for another method is refused; this token then works with a right one.
  assert.is((await items({ authorization: `DPoP ${token}`, dpop })).outcome, "401 partner.dpop_proof_invalid");
  const right = await proof(pair, { htm: "GET", htu: `${test.base}/v1/items`, ath: accessTokenHash(token) });
  assert.is((await items({ authorization: `DPoP ${token}`, dpop: right })).outcome, admitted);
  const wrongUrl = await sandboxMint(await proof(pair, { htm: "POST", htu: `${test.base}/v1/oauth/token` }));
  assert.is(wrongUrl.status, 400);
  assert.is((wrongUrl.body["error"] as { code: string }).code, "developer.dpop_proof_invalid");
});

/** The token endpoint by hand, with a DPoP header when given: status and body. */
async function tokenRequest(params: Record<string, string>, dpop?: string) {
  const answer = await fetch(`${test.base}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(dpop ? { dpop } : {}) },
    body: new URLSearchParams(params),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

Dpop("a code exchanged with a proof starts a bound family: it refreshes with that key only", async () => {
  const w = await world();
  const pair = await keyPair();
  const htu = `${test.base}/v1/oauth/token`;
  const code = (await decide(test, w)).searchParams.get("code")!;
  const credentials = { client_id: w.clientId, client_secret: w.clientSecret };
  const exchanged = await tokenRequest(
    { grant_type: "authorization_code", code, redirect_uri: w.redirectUri, ...credentials },
    await proof(pair, { htm: "POST", htu }),
  );
  assert.is(exchanged.status, 200);
  assert.is(exchanged.body["token_type"], "DPoP");
  const refreshToken = exchanged.body["refresh_token"] as string;
  const refresh = { grant_type: "refresh_token", refresh_token: refreshToken, ...credentials };
  // Another key's proof, and no proof: refused without rotating the token.
  const other = await tokenRequest(refresh, await proof(await keyPair(), { htm: "POST", htu }));
  assert.equal(
    [other.status, other.body["error"], other.body["code"]],
    [400, "invalid_dpop_proof", "oauth.dpop_key_mismatch"],
  );
  const none = await tokenRequest(refresh);
  assert.equal([none.status, none.body["code"]], [400, "oauth.dpop_key_mismatch"]);
  // A proof for the wrong URL: the proof itself is refused.
  const wrongUrl = await tokenRequest(refresh, await proof(pair, { htm: "POST", htu: `${test.base}/v1/token` }));
  assert.equal(
    [wrongUrl.status, wrongUrl.body["error"], wrongUrl.body["code"]],
    [400, "invalid_dpop_proof", "oauth.dpop_proof_invalid"],
  );
  // oauth4webapi's refresh with the family's key.
  const client = clientOf(w);
  const response = await oauth.refreshTokenGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(w.clientSecret),
    refreshToken,
    {
      DPoP: oauth.DPoP(client, pair),
      ...insecure,
    },
  );
  const refreshed = await oauth.processRefreshTokenResponse(as, client, response);
  assert.is(refreshed.token_type, "dpop");
  assert.ok(refreshed.refresh_token);
  const cnf = payloadOf(refreshed.access_token)["cnf"] as { jkt: string };
  assert.equal(cnf, payloadOf(exchanged.body["access_token"] as string)["cnf"]);
});

Dpop("an app that requires DPoP: its Bearer tokens, and token requests without a proof, are refused", async () => {
  const w = await world();
  const sandboxMint = (headers: Record<string, string>) =>
    fetch(`${test.base}/v1/token`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ grant_type: "client_credentials", client_id: w.clientId, client_secret: w.clientSecret }),
    });
  const bearer = ((await (await sandboxMint({})).json()) as { access_token: string }).access_token;
  const updated = await credentialServiceOf(test, clock).updateApp({ appId: w.appId, name: "", requireDpop: true });
  assert.is(updated.app?.requireDpop, true);
  // Past the credential cache (CREDENTIAL_CACHE_SECONDS) the client is verified again, with the app's new setting.
  clock.advance(6_000);
  assert.equal(await items({ authorization: `Bearer ${bearer}` }), {
    outcome: "401 partner.dpop_required",
    challenge: `DPoP error="invalid_token", algs="${algs}"`,
  });
  const plain = await sandboxMint({});
  assert.is(plain.status, 400);
  assert.is(((await plain.json()) as { error: { code: string } }).error.code, "developer.dpop_required");
  const oauthPlain = await tokenRequest({
    grant_type: "client_credentials",
    client_id: w.clientId,
    client_secret: w.clientSecret,
  });
  assert.equal(
    [oauthPlain.status, oauthPlain.body["error"], oauthPlain.body["code"]],
    [400, "invalid_request", "oauth.dpop_required"],
  );
  // With a proof, the app's tokens work as before.
  const pair = await keyPair();
  const tokens = await mint(w, pair);
  assert.is(tokens.token_type, "dpop");
  const dpop = await proof(pair, {
    htm: "GET",
    htu: `${test.base}/v1/items`,
    ath: accessTokenHash(tokens.access_token),
  });
  assert.is((await items({ authorization: `DPoP ${tokens.access_token}`, dpop })).outcome, admitted);
});

Dpop.run();
