// The client's DPoP (RFC 9449) and PAR (RFC 9126) against the real app on free ports, with server nonces on
// (DPOP_NONCES=1) and the replay cache in the app's shared store: the client pushes the authorization request with a
// proof (the code bound to its key), picks up the nonce the token endpoint asks for, exchanges the code for DPoP-bound
// tokens, calls partner routes with a proof per call (ath, nonce), takes a resource's 401 use_dpop_nonce and sends
// again, refreshes with the same key, and refuses to use tokens bound to a key it does not hold. The wire is real;
// the recording fetch only watches (each request's DPoP proof decoded).
import { decodeJwt, decodeProtectedHeader, generateKeyPair, calculateJwkThumbprint, type JWK } from "jose";
import * as assert from "uvu/assert";
import { ReconnectRequiredError, type DpopKeyPair, type PartnerClient } from "../../src/client/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { accessTokenHash } from "../../src/token/dpop-proof.js";
import { dpopNoncePeriodSeconds } from "../../src/token/dpop-nonces.js";
import { clientFor, expireSoon, newSeededWorld } from "../support/client.js";
import { suite } from "../support/suite.js";
import {
  cookieHeader,
  credentialServiceOf,
  hiddenValue,
  signIn,
  startTestApp,
  type TestApp,
  type World,
} from "../support/test-app.js";

const Bound = suite("client/dpop-par");
const clock = createManualClock(Date.now());
let test: TestApp;
let worlds = 0;

Bound.before(async () => {
  test = await startTestApp({
    clock,
    redis: true,
    env: { DPOP_NONCES: "1", GATEWAY_CACHE_SECONDS: "0", OAUTH_TOKEN_ADDRESS_RATE_LIMIT: "100000" },
  });
});
Bound.after(async () => {
  await test.stop();
});

const world = () => newSeededWorld(test, clock, `http://127.0.0.1:9/client-dpop/${++worlds}`);

/** One request as sent: "METHOD /path status", and its DPoP proof's header and claims when it carried one. */
interface Sent {
  line: string;
  authorization: string | null;
  proof?: { header: Record<string, unknown>; claims: Record<string, unknown> };
}

/** The client of `w` with `extra` options, its requests recorded with their proofs. */
function boundClient(w: World, extra: Parameters<typeof clientFor>[3]) {
  const sent: Sent[] = [];
  const harness = clientFor(test, w, clock, {
    ...extra,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const headers = new Headers(init?.headers);
      const proof = headers.get("dpop");
      const response = await fetch(input, init);
      sent.push({
        line: `${init?.method ?? "GET"} ${url.pathname} ${response.status}`,
        authorization: headers.get("authorization"),
        ...(proof
          ? { proof: { header: decodeProtectedHeader(proof) as Record<string, unknown>, claims: decodeJwt(proof) } }
          : {}),
      });
      return response;
    },
  });
  return { ...harness, sent, lines: () => sent.map((request) => request.line) };
}

/** The merchant's consent for a pushed request's authorize URL (client_id and request_uri only): the callback. */
async function consentAt(w: World, url: string): Promise<URL> {
  const cookies = await signIn(test, w.owner, url);
  const page = await fetch(url, { headers: { cookie: cookieHeader(cookies) } });
  const html = await page.text();
  assert.is(page.status, 200, html);
  const answer = await fetch(`${test.auth}/oauth/authorize/decision`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: test.auth },
    body: new URLSearchParams({
      csrf: hiddenValue(html, "csrf"),
      client_id: hiddenValue(html, "client_id"),
      request_uri: hiddenValue(html, "request_uri"),
      decision: "allow",
    }),
  });
  assert.is(answer.status, 302, await answer.text());
  return new URL(answer.headers.get("location")!);
}

async function connectPushed(w: World, client: PartnerClient): Promise<void> {
  const pending = await client.startAuthorization();
  const url = new URL(pending.url);
  assert.equal([...url.searchParams.keys()], ["client_id", "request_uri"]);
  assert.match(url.searchParams.get("request_uri")!, /^urn:ietf:params:oauth:request_uri:/);
  await client.completeAuthorization(await consentAt(w, pending.url), pending);
}

const thumbprintOf = async (pair: DpopKeyPair) =>
  calculateJwkThumbprint((await crypto.subtle.exportKey("jwk", pair.publicKey)) as JWK, "sha256");
const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

Bound(
  "PAR with a proof, the nonce asked for and sent, a DPoP-bound code exchange, partner calls with a proof each",
  async () => {
    const w = await world();
    const keyPair = (await generateKeyPair("ES256")) as DpopKeyPair;
    const jkt = await thumbprintOf(keyPair);
    const { client, store, sent, lines } = boundClient(w, { dpop: { keyPair }, pushedAuthorization: true });
    await connectPushed(w, client);
    // Each proof-carrying request without the current nonce is refused once, then sent again with it.
    assert.equal(lines(), ["POST /v1/oauth/par 400", "POST /v1/oauth/par 201", "POST /v1/oauth/token 200"]);
    const [, pushed, exchanged] = sent;
    assert.is(sent[0]!.proof!.claims["nonce"], undefined);
    for (const [request, path] of [
      [pushed!, "/v1/oauth/par"],
      [exchanged!, "/v1/oauth/token"],
    ] as const) {
      assert.equal(request.proof!.header["typ"], "dpop+jwt");
      assert.equal(request.proof!.header["alg"], "ES256");
      assert.is(request.proof!.claims["htm"], "POST");
      assert.is(request.proof!.claims["htu"], `${test.base}${path}`);
      assert.type(request.proof!.claims["nonce"], "string");
      assert.is(request.proof!.claims["ath"], undefined);
    }
    const stored = (await store.get(w.companyId))!;
    assert.is(stored.tokenType, "DPoP");
    assert.is(stored.dpopJkt, jkt);
    assert.equal(payloadOf(stored.accessToken)["cnf"], { jkt });

    const merchant = client.merchant(w.companyId);
    await merchant.items.list({ limit: 2 });
    await merchant.stores.list();
    const calls = sent.slice(3);
    assert.equal(
      calls.map((call) => call.line),
      ["GET /v1/items 200", "GET /v1/stores 200"],
    );
    const jtis = new Set<unknown>();
    for (const call of calls) {
      assert.is(call.authorization, `DPoP ${stored.accessToken}`);
      assert.is(call.proof!.claims["ath"], accessTokenHash(stored.accessToken));
      assert.type(call.proof!.claims["nonce"], "string");
      jtis.add(call.proof!.claims["jti"]);
    }
    assert.is(jtis.size, 2);
    // The token alone is worth nothing: sent as Bearer (as a thief would), it is refused.
    const stolen = await fetch(`${test.base}/v1/items`, { headers: { authorization: `Bearer ${stored.accessToken}` } });
    assert.is(stolen.status, 401);
    assert.is(((await stolen.json()) as { code: string }).code, "partner.dpop_bound_token");
  },
);

Bound("a resource's 401 use_dpop_nonce: the call is sent again once with the new nonce", async () => {
  const w = await world();
  const { client, lines } = boundClient(w, { dpop: true });
  await client.connectSandbox(w.companyId);
  assert.equal(lines(), ["POST /v1/token 400", "POST /v1/token 200"]);
  await client.merchant(w.companyId).items.list({ limit: 1 });
  // Two nonce periods on: the nonce the client holds is no longer accepted (the token is still fresh).
  clock.advance(2 * dpopNoncePeriodSeconds * 1000 + 1000);
  await client.merchant(w.companyId).items.list({ limit: 1 });
  assert.equal(lines().slice(2), ["GET /v1/items 200", "GET /v1/items 401", "GET /v1/items 200"]);
});

Bound(
  "a DPoP-bound refresh: with the client's key, the new tokens bound to it; another key's client refuses them",
  async () => {
    const w = await world();
    const keyPair = (await generateKeyPair("ES256")) as DpopKeyPair;
    const jkt = await thumbprintOf(keyPair);
    const { client, store, sent, lines } = boundClient(w, { dpop: { keyPair }, pushedAuthorization: true });
    await connectPushed(w, client);
    const first = (await store.get(w.companyId))!;
    await expireSoon(store, w.companyId, clock, 30);
    await client.merchant(w.companyId).items.list({ limit: 1 });
    const renewed = (await store.get(w.companyId))!;
    assert.is.not(renewed.refreshToken, first.refreshToken);
    assert.is(renewed.dpopJkt, jkt);
    assert.equal(payloadOf(renewed.accessToken)["cnf"], { jkt });
    // The clock moved past two nonce periods too: the refresh is asked for the new nonce once.
    assert.equal(lines().slice(3), ["POST /v1/oauth/token 400", "POST /v1/oauth/token 200", "GET /v1/items 200"]);
    const refresh = sent[4]!;
    assert.is(refresh.proof!.claims["htu"], `${test.base}/v1/oauth/token`);
    assert.is(refresh.proof!.claims["ath"], undefined);

    // A process with another key and the same store: the tokens are not used, nothing is sent, connect again.
    const other = boundClient(w, { dpop: true, tokenStore: store.inner });
    let refused: unknown;
    try {
      await other.client.merchant(w.companyId).items.list({ limit: 1 });
    } catch (error) {
      refused = error;
    }
    assert.instance(refused, ReconnectRequiredError);
    assert.is((refused as ReconnectRequiredError).code, "client.dpop_key_changed");
    assert.equal(other.lines(), []);
    // The server agrees: that refresh token with another key's proof is refused, and stays the owner's.
    const stranger = boundClient(w, { dpop: true });
    let mismatch: unknown;
    try {
      await stranger.client.tokens.refresh(renewed.refreshToken!);
    } catch (error) {
      mismatch = error;
    }
    assert.is((mismatch as ReconnectRequiredError).code, "oauth.dpop_key_mismatch");
  },
);

Bound("an app requiring DPoP and PAR: the client with both connects; without them it is refused", async () => {
  const w = await world();
  await credentialServiceOf(test, clock).updateApp({
    appId: w.appId,
    name: "",
    requireDpop: true,
    requirePushedAuthorizationRequests: true,
  });
  // Past the credential cache: the token endpoint reads the app's new settings.
  clock.advance(6_000);
  const plain = boundClient(w, {});
  const pending = await plain.client.startAuthorization();
  const page = await fetch(pending.url);
  assert.is(page.status, 400);
  assert.match(await page.text(), "oauth.pushed_request_required");
  let refused: unknown;
  try {
    await plain.client.connectSandbox(w.companyId);
  } catch (error) {
    refused = error;
  }
  assert.is((refused as { code: string }).code, "developer.dpop_required");

  const { client, store } = boundClient(w, { dpop: true, pushedAuthorization: true });
  await connectPushed(w, client);
  assert.is((await store.get(w.companyId))!.tokenType, "DPoP");
  assert.type((await client.merchant(w.companyId).items.list({ limit: 1 })).items, "object");
});

Bound.run();
