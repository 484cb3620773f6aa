// POST /v1/oauth/revoke as partners call it, with two client libraries nobody here wrote (openid-client's
// tokenRevocation, oauth4webapi's revocationRequest): revoking an access token (a JWT of about a thousand
// characters) answers 200 like any other token (spec, "POST /v1/oauth/revoke"; RFC 7009 section 2.2), where a
// 512-character cap on `token` used to answer 400 invalid_request. The access token stays valid until its exp
// (spec: access tokens are stateless), and a refresh token revoked the same way ends the grant.
import * as oauth from "oauth4webapi";
import * as openid from "openid-client";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { decide, newWorld, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Revocation = suite("token/revocation-clients");
const clock = createManualClock(Date.now());
const insecure = { [oauth.allowInsecureRequests]: true } as const;
let test: TestApp;
let worlds = 0;

Revocation.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { OAUTH_TOKEN_ADDRESS_RATE_LIMIT: "100000" } });
});
Revocation.after(async () => {
  await test.stop();
});

/** A connected world and its first token pair, from a plain code exchange. */
async function connected(): Promise<{ world: World; accessToken: string; refreshToken: string }> {
  const world = await newWorld(test, clock, `http://127.0.0.1:9/callback/revocation-${++worlds}`);
  const code = (await decide(test, world)).searchParams.get("code")!;
  const answer = await fetch(`${test.base}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: world.redirectUri,
      client_id: world.clientId,
      client_secret: world.clientSecret,
    }),
  });
  assert.is(answer.status, 200);
  const body = (await answer.json()) as { access_token: string; refresh_token: string };
  return { world, accessToken: body.access_token, refreshToken: body.refresh_token };
}

/**
 * A partner call with the access token: the gateway admits a valid token and the call reaches the merchant's region,
 * which newWorld leaves unprovisioned (503 company.not_provisioned); a token it refused would be 401.
 */
async function itemsCode(accessToken: string) {
  const answer = await fetch(`${test.base}/v1/items`, { headers: { authorization: `Bearer ${accessToken}` } });
  return `${answer.status} ${((await answer.json()) as { code?: string }).code}`;
}
const admitted = "503 company.not_provisioned";

/** The refresh grant, by hand: its status and service code. */
async function refresh(world: World, refreshToken: string) {
  const answer = await fetch(`${test.base}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: world.clientId,
      client_secret: world.clientSecret,
    }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

Revocation(
  "openid-client tokenRevocation: an access token (over 512 characters) is 200; a refresh token ends the grant",
  async () => {
    const { world, accessToken, refreshToken } = await connected();
    assert.ok(accessToken.length > 512, `the access token has ${accessToken.length} characters`);
    const config = await openid.discovery(
      new URL(`${test.base}/`),
      world.clientId,
      world.clientSecret,
      openid.ClientSecretPost(world.clientSecret),
      {
        algorithm: "oauth2",
        execute: [openid.allowInsecureRequests],
      },
    );
    assert.is(config.serverMetadata().revocation_endpoint, `${test.base}/v1/oauth/revoke`);
    // tokenRevocation resolves only on a 200 (it throws on any error body).
    await openid.tokenRevocation(config, accessToken);
    await openid.tokenRevocation(config, accessToken, { token_type_hint: "access_token" });
    // Stateless: the access token still works, and so does the grant.
    assert.is(await itemsCode(accessToken), admitted);
    const rotated = await refresh(world, refreshToken);
    assert.is(rotated.status, 200);
    await openid.tokenRevocation(config, rotated.body["refresh_token"] as string, { token_type_hint: "refresh_token" });
    assert.equal((await refresh(world, rotated.body["refresh_token"] as string)).body["code"], "oauth.grant_revoked");
  },
);

Revocation(
  "oauth4webapi revocationRequest: an access token is 200 {ok:true}; so is a malformed 4,000-character token",
  async () => {
    const { world, accessToken, refreshToken } = await connected();
    const issuer = new URL(`${test.base}/`);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
    );
    const client: oauth.Client = { client_id: world.clientId };
    const auth = oauth.ClientSecretPost(world.clientSecret);
    for (const token of [accessToken, "x".repeat(4000), `${accessToken}.tampered`]) {
      const response = await oauth.revocationRequest(as, client, auth, token, insecure);
      assert.is(response.status, 200);
      assert.equal(await response.clone().json(), { ok: true });
      // processRevocationResponse throws on anything but a 200.
      await oauth.processRevocationResponse(response);
    }
    assert.is(await itemsCode(accessToken), admitted);
    assert.is((await refresh(world, refreshToken)).status, 200, "revoking an access token leaves the grant alone");
    // A wrong secret is still 401 invalid_client, however long the token.
    const wrong = await oauth.revocationRequest(
      as,
      client,
      oauth.ClientSecretPost("lp_sk_sb_" + "D".repeat(43)),
      accessToken,
      insecure,
    );
    assert.is(wrong.status, 401);
    assert.is(wrong.headers.get("www-authenticate"), "Basic");
    assert.is(((await wrong.json()) as { error: string }).error, "invalid_client");
  },
);

Revocation.run();
