// RFC 9126 pushed authorization requests over real ports: oauth4webapi pushes to POST /v1/oauth/par, the merchant
// signs in and decides on the consent site with only client_id and request_uri on the URL, and oauth4webapi
// exchanges the code. Then the refusals: a request_uri used twice, by another client, expired (the injected clock
// moved), a contradicting parameter, parallel decisions (exactly one code), and PAR's own errors.
import { calculateJwkThumbprint, exportJWK } from "jose";
import * as oauth from "oauth4webapi";
import * as assert from "uvu/assert";
import { suite } from "../support/suite.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import {
  cookieHeader,
  hiddenValue,
  newWorld,
  authorizeUrl,
  credentialServiceOf,
  signIn,
  startTestApp,
  type TestApp,
  type World,
} from "../support/test-app.js";

const Par = suite("token/pushed-authorization");
const clock = createManualClock(Date.now());
const insecure = { [oauth.allowInsecureRequests]: true } as const;
let test: TestApp;
let as: oauth.AuthorizationServer;
let worlds = 0;

Par.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { OAUTH_TOKEN_ADDRESS_RATE_LIMIT: "100000" } });
  const issuer = new URL(`${test.base}/`);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
});
Par.after(async () => {
  await test.stop();
});

const world = () => newWorld(test, clock, `http://127.0.0.1:9/callback/par-${++worlds}`);

/** A PKCE pair. */
async function pkce() {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

/** Pushes the world's request by hand (form body, client_secret_post); the status and JSON body. */
async function push(w: World, extra: Record<string, string> = {}) {
  const answer = await fetch(`${test.base}/v1/oauth/par`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: w.clientId,
      client_secret: w.clientSecret,
      response_type: "code",
      redirect_uri: w.redirectUri,
      state: "st-par",
      code_challenge: (await pkce()).challenge,
      code_challenge_method: "S256",
      ...extra,
    }),
  });
  return { status: answer.status, headers: answer.headers, body: (await answer.json()) as Record<string, unknown> };
}

const authorizeAt = (clientId: string, requestUri: string, extra: Record<string, string> = {}) =>
  `${test.auth}/oauth/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri, ...extra })}`;

/** The consent page at `url` for a signed-in merchant: status and HTML. */
async function consentPage(url: string, cookies: Map<string, string>) {
  const answer = await fetch(url, { headers: { cookie: cookieHeader(cookies) } });
  return { status: answer.status, html: await answer.text() };
}

/** Posts the consent screen's form (client_id and request_uri, as the page carries them) with `decision`. */
function decideOn(html: string, cookies: Map<string, string>, decision = "allow") {
  const form = new URLSearchParams({
    csrf: hiddenValue(html, "csrf"),
    client_id: hiddenValue(html, "client_id"),
    request_uri: hiddenValue(html, "request_uri"),
    decision,
  });
  return fetch(`${test.auth}/oauth/authorize/decision`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: test.auth },
    body: form,
  });
}

/** The error code a consent page shows (its technical details). */
const shownCode = (html: string) => /<code>([a-z]+\.[a-z_]+)<\/code>/.exec(html)?.[1];

Par("oauth4webapi: PAR, sign-in and consent with client_id and request_uri only, code exchange", async () => {
  const w = await world();
  assert.is(as.pushed_authorization_request_endpoint, `${test.base}/v1/oauth/par`);
  assert.is(as.require_pushed_authorization_requests, false);
  const client: oauth.Client = { client_id: w.clientId };
  const auth = oauth.ClientSecretBasic(w.clientSecret);
  const { verifier, challenge } = await pkce();
  const state = oauth.generateRandomState();
  const parameters = {
    response_type: "code",
    redirect_uri: w.redirectUri,
    state,
    scope: "items.read",
    code_challenge: challenge,
    code_challenge_method: "S256",
  };
  const response = await oauth.pushedAuthorizationRequest(as, client, auth, parameters, insecure);
  assert.is(response.status, 201);
  assert.is(response.headers.get("cache-control"), "no-store");
  const pushed = await oauth.processPushedAuthorizationResponse(as, client, response);
  assert.match(pushed.request_uri, /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
  assert.is(pushed.expires_in, 60);

  const url = authorizeAt(w.clientId, pushed.request_uri);
  const cookies = await signIn(test, w.owner, url);
  const first = await consentPage(url, cookies);
  assert.is(first.status, 200);
  // The form carries the request by reference only: nothing pushed reaches the page.
  assert.is(hiddenValue(first.html, "request_uri"), pushed.request_uri);
  assert.not.match(first.html, 'name="redirect_uri"');
  assert.not.match(first.html, 'name="code_challenge"');
  // A reload before the decision shows the same screen (RFC 9126 section 4 allows it).
  const reload = await consentPage(url, cookies);
  assert.is(reload.status, 200);

  const decided = await decideOn(reload.html, cookies);
  assert.is(decided.status, 302);
  const callback = new URL(decided.headers.get("location")!);
  assert.is(`${callback.origin}${callback.pathname}`, w.redirectUri);
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, auth, params, w.redirectUri, verifier, insecure),
  );
  assert.is(tokens.token_type, "bearer");
  assert.ok(tokens.access_token.length > 0);
  assert.ok(typeof tokens.refresh_token === "string");

  // Used up: the same request_uri again is refused, on the screen and on a second decision.
  const again = await consentPage(url, cookies);
  assert.is(again.status, 400);
  assert.is(shownCode(again.html), "oauth.invalid_request_uri");
  const second = await decideOn(reload.html, cookies);
  assert.is(second.status, 400);
  assert.is(shownCode(await second.text()), "oauth.invalid_request_uri");
});

Par(
  "DPoP at PAR (RFC 9449 section 10): the code is bound to the proof's key; another key is refused without using it up, its own gets a DPoP token",
  async () => {
    const w = await world();
    const client: oauth.Client = { client_id: w.clientId };
    const auth = oauth.ClientSecretBasic(w.clientSecret);
    const { verifier, challenge } = await pkce();
    const state = oauth.generateRandomState();
    const [key, other] = await Promise.all([
      oauth.generateKeyPair("ES256", { extractable: true }),
      oauth.generateKeyPair("ES256", { extractable: true }),
    ]);
    const parameters = {
      response_type: "code",
      redirect_uri: w.redirectUri,
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    };
    // A proof's iat is the service's time (the injected clock, which real time has passed by now): each DPoP
    // request's client carries the skew, as test/token/dpop-clients.test.ts's do.
    const skewed = (): oauth.Client => ({
      ...client,
      [oauth.clockSkew]: Math.round((clock.now() - Date.now()) / 1000),
    });
    const pushing = skewed();
    const response = await oauth.pushedAuthorizationRequest(as, pushing, auth, parameters, {
      ...insecure,
      DPoP: oauth.DPoP(pushing, key),
    });
    assert.is(response.status, 201, await response.clone().text());
    const pushed = await oauth.processPushedAuthorizationResponse(as, client, response);
    const url = authorizeAt(w.clientId, pushed.request_uri);
    const cookies = await signIn(test, w.owner, url);
    const decided = await decideOn((await consentPage(url, cookies)).html, cookies);
    assert.is(decided.status, 302);
    const params = oauth.validateAuthResponse(as, client, new URL(decided.headers.get("location")!), state);

    const exchange = (pair: oauth.CryptoKeyPair | undefined) => {
      const exchanging = skewed();
      return oauth.authorizationCodeGrantRequest(as, exchanging, auth, params, w.redirectUri, verifier, {
        ...insecure,
        ...(pair ? { DPoP: oauth.DPoP(exchanging, pair) } : {}),
      });
    };
    for (const pair of [other, undefined]) {
      const refused = await exchange(pair);
      assert.is(refused.status, 400);
      assert.is(((await refused.json()) as { error: string }).error, "invalid_dpop_proof");
    }
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(key));
    assert.is(tokens.token_type, "dpop");
    const claims = JSON.parse(Buffer.from(tokens.access_token.split(".")[1]!, "base64url").toString()) as {
      cnf?: { jkt?: string };
    };
    assert.is(claims.cnf?.jkt, await calculateJwkThumbprint(await exportJWK(key.publicKey)));
  },
);

Par("dpop_jkt pushed as a parameter: refused unless shaped as a thumbprint (43 base64url characters)", async () => {
  const w = await world();
  const malformed = await push(w, { dpop_jkt: "not-a-thumbprint" });
  assert.is(malformed.status, 400);
  assert.equal(malformed.body, {
    error: "invalid_request",
    error_description: messageFor("oauth.invalid_request", { fields: "dpop_jkt" }),
    code: "oauth.invalid_request",
  });
  const named = await push(w, { dpop_jkt: "A".repeat(43) });
  assert.is(named.status, 201, JSON.stringify(named.body));
});

Par("a request_uri pushed by another client is refused, and stays usable by its own", async () => {
  const [mine, theirs] = [await world(), await world()];
  const pushed = await push(mine);
  assert.is(pushed.status, 201);
  const requestUri = pushed.body["request_uri"] as string;
  // Signed in through the other app's own (plain) authorize request; then the stolen request_uri.
  const cookies = await signIn(test, theirs.owner, authorizeUrl(test, theirs));
  const stolen = await consentPage(authorizeAt(theirs.clientId, requestUri), cookies);
  assert.is(stolen.status, 400);
  assert.is(shownCode(stolen.html), "oauth.invalid_request_uri");
  const ownCookies = await signIn(test, mine.owner, authorizeAt(mine.clientId, requestUri));
  assert.is((await consentPage(authorizeAt(mine.clientId, requestUri), ownCookies)).status, 200);
});

Par("expiry: 60 s to reach the authorize page, then 600 s from the first visit to decide", async () => {
  const w = await world();
  const late = (await push(w)).body["request_uri"] as string;
  const onTime = (await push(w)).body["request_uri"] as string;
  const cookies = await signIn(test, w.owner, authorizeAt(w.clientId, onTime));
  clock.advance(61_000);
  const expired = await consentPage(authorizeAt(w.clientId, late), cookies);
  assert.is(expired.status, 400);
  assert.is(shownCode(expired.html), "oauth.invalid_request_uri");
  // The other was opened (the sign-in page) within its minute: ten minutes from then.
  clock.advance(500_000);
  const open = await consentPage(authorizeAt(w.clientId, onTime), cookies);
  assert.is(open.status, 200);
  clock.advance(100_000);
  const closed = await consentPage(authorizeAt(w.clientId, onTime), cookies);
  assert.is(closed.status, 400);
  assert.is(shownCode(closed.html), "oauth.invalid_request_uri");
  const decided = await decideOn(open.html, cookies);
  assert.is(decided.status, 400);
});

Par("parameters beside client_id and request_uri: the pushed value is accepted, another is refused", async () => {
  const w = await world();
  const requestUri = (await push(w)).body["request_uri"] as string;
  const cookies = await signIn(test, w.owner, authorizeAt(w.clientId, requestUri));
  const same = await consentPage(
    authorizeAt(w.clientId, requestUri, { response_type: "code", state: "st-par" }),
    cookies,
  );
  assert.is(same.status, 200);
  const other = await consentPage(authorizeAt(w.clientId, requestUri, { state: "forged" }), cookies);
  assert.is(other.status, 400);
  assert.is(shownCode(other.html), "oauth.invalid_request");
  assert.match(other.html, "state");
  const notPushed = await consentPage(
    authorizeAt(w.clientId, requestUri, { redirect_uri: "http://127.0.0.1:9/elsewhere", response_mode: "query" }),
    cookies,
  );
  assert.is(notPushed.status, 400);
  assert.is(shownCode(notPushed.html), "oauth.invalid_request");
  assert.match(notPushed.html, "redirect_uri");
  assert.match(notPushed.html, "response_mode");
  const twice = await consentPage(`${authorizeAt(w.clientId, requestUri)}&request_uri=x`, cookies);
  assert.is(twice.status, 400);
  assert.is(shownCode(twice.html), "oauth.invalid_request");
});

Par("parallel decisions on one pushed request: exactly one code, the others oauth.invalid_request_uri", async () => {
  const w = await world();
  const requestUri = (await push(w)).body["request_uri"] as string;
  const url = authorizeAt(w.clientId, requestUri);
  const cookies = await signIn(test, w.owner, url);
  const { html } = await consentPage(url, cookies);
  const answers = await Promise.all(Array.from({ length: 6 }, () => decideOn(html, cookies)));
  const statuses = answers.map((answer) => answer.status).sort();
  assert.equal(statuses, [302, 400, 400, 400, 400, 400]);
  const codes = answers.filter((answer) => answer.status === 302).map((a) => new URL(a.headers.get("location")!));
  assert.is(codes.length, 1);
  assert.ok(codes[0]!.searchParams.get("code"));
  for (const answer of answers.filter((a) => a.status === 400))
    assert.is(shownCode(await answer.text()), "oauth.invalid_request_uri");
});

Par("Deny uses the request up too: access_denied to the app, then the request_uri is refused", async () => {
  const w = await world();
  const requestUri = (await push(w)).body["request_uri"] as string;
  const url = authorizeAt(w.clientId, requestUri);
  const cookies = await signIn(test, w.owner, url);
  const { html } = await consentPage(url, cookies);
  const denied = await decideOn(html, cookies, "deny");
  assert.is(denied.status, 302);
  const location = new URL(denied.headers.get("location")!);
  assert.is(location.searchParams.get("error"), "access_denied");
  assert.is(location.searchParams.get("state"), "st-par");
  assert.is((await consentPage(url, cookies)).status, 400);
});

Par(
  "the sign-in page's Cancel uses the request up; an unknown request_uri is refused; ui_locales may come along",
  async () => {
    const w = await world();
    const requestUri = (await push(w)).body["request_uri"] as string;
    // Signed out, the sign-in page in Arabic (ui_locales is the page's hint, not an authorization parameter).
    const signInPage = await fetch(authorizeAt(w.clientId, requestUri, { ui_locales: "ar" }));
    assert.is(signInPage.status, 200);
    const page = await signInPage.text();
    assert.match(page, 'lang="ar"');
    const cancelHref = /href="(\/oauth\/authorize\/cancel[^"]*)"/.exec(page)![1]!.replace(/&amp;/g, "&");
    const cancelled = await fetch(`${test.auth}${cancelHref}`, { redirect: "manual" });
    assert.is(cancelled.status, 302);
    const location = new URL(cancelled.headers.get("location")!);
    assert.is(location.searchParams.get("error"), "access_denied");
    assert.is(location.searchParams.get("state"), "st-par");
    const again = await fetch(`${test.auth}${cancelHref}`, { redirect: "manual" });
    assert.is(again.status, 400);
    assert.is(shownCode(await again.text()), "oauth.invalid_request_uri");
    for (const unknown of [`urn:ietf:params:oauth:request_uri:${"A".repeat(43)}`, "https://app.example/request.jwt"]) {
      const refused = await fetch(authorizeAt(w.clientId, unknown));
      assert.is(refused.status, 400, unknown);
      assert.is(shownCode(await refused.text()), "oauth.invalid_request_uri");
    }
  },
);

Par("an app that requires PAR: its plain authorize is refused (oauth.pushed_request_required), PAR works", async () => {
  const w = await world();
  const credentials = credentialServiceOf(test, clock, { regions: false });
  const updated = await credentials.updateApp({ appId: w.appId, name: "", requirePushedAuthorizationRequests: true });
  assert.is(updated.app!.requirePushedAuthorizationRequests, true);
  const plain = await fetch(authorizeUrl(test, w));
  assert.is(plain.status, 400);
  assert.is(shownCode(await plain.text()), "oauth.pushed_request_required");
  const requestUri = (await push(w)).body["request_uri"] as string;
  const url = authorizeAt(w.clientId, requestUri);
  const cookies = await signIn(test, w.owner, url);
  const { status, html } = await consentPage(url, cookies);
  assert.is(status, 200);
  assert.is((await decideOn(html, cookies)).status, 302);
  // Turned off again (a field not sent is kept; false is sent): the plain flow shows its sign-in page.
  const kept = await credentials.updateApp({ appId: w.appId, name: "" });
  assert.is(kept.app!.requirePushedAuthorizationRequests, true);
  await credentials.updateApp({ appId: w.appId, name: "", requirePushedAuthorizationRequests: false });
  assert.is((await fetch(authorizeUrl(test, w))).status, 200);
});

Par("PAR's errors, in the OAuth body: client authentication and the authorize checks", async () => {
  const w = await world();
  const expect = async (extra: Record<string, string>, status: number, error: string, code: string) => {
    const answer = await push(w, extra);
    assert.is(answer.status, status, JSON.stringify(answer.body));
    assert.is(answer.body["error"], error);
    assert.is(answer.body["code"], code);
    assert.is(answer.headers.get("cache-control"), "no-store");
    return answer.body;
  };
  const missing = await expect({ client_secret: "" }, 400, "invalid_request", "oauth.invalid_request");
  assert.match(missing["error_description"] as string, "client_secret");
  await expect({ client_secret: `lp_sk_sb_${"D".repeat(43)}` }, 401, "invalid_client", "developer.invalid_client");
  const redirect = await expect(
    { redirect_uri: "http://127.0.0.1:9/not-registered" },
    400,
    "invalid_request",
    "oauth.invalid_request",
  );
  assert.match(redirect["error_description"] as string, "redirect_uri");
  await expect({ state: "" }, 400, "invalid_request", "oauth.state_required");
  await expect({ code_challenge_method: "plain" }, 400, "invalid_request", "oauth.pkce_method_unsupported");
  await expect({ response_type: "token" }, 400, "invalid_request", "oauth.invalid_request");
  await expect({ response_mode: "fragment" }, 400, "invalid_request", "oauth.unsupported_response_mode");
});

Par.run();
