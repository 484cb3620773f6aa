// DPoP server nonces (RFC 9449 section 8) with DPOP_NONCES=1, over real ports with oauth4webapi: a token request
// without the nonce answers 400 use_dpop_nonce with DPoP-Nonce, oauth4webapi's retry with it succeeds, and its
// protected calls carry the nonce it learned; a partner call's proof without one answers 401
// partner.dpop_nonce_required with WWW-Authenticate use_dpop_nonce and DPoP-Nonce; an old nonce stops working.
import { randomUUID } from "node:crypto";
import * as oauth from "oauth4webapi";
import { SignJWT, exportJWK, type CryptoKey } from "jose";
import * as assert from "uvu/assert";
import { suite } from "../support/suite.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { accessTokenHash } from "../../src/token/dpop-proof.js";
import { dpopNoncePeriodSeconds } from "../../src/token/dpop-nonces.js";
import { newWorld, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Nonces = suite("token/dpop-nonces");
const clock = createManualClock(Date.now());
const insecure = { [oauth.allowInsecureRequests]: true } as const;
let test: TestApp;
let as: oauth.AuthorizationServer;

Nonces.before(async () => {
  test = await startTestApp({ clock, redis: true, env: { DPOP_NONCES: "1" } });
  const issuer = new URL(`${test.base}/`);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
});
Nonces.after(async () => {
  await test.stop();
});

const clientOf = (w: World): oauth.Client => ({
  client_id: w.clientId,
  [oauth.clockSkew]: Math.round((clock.now() - Date.now()) / 1000),
});

async function handProof(pair: oauth.CryptoKeyPair, claims: Record<string, unknown>): Promise<string> {
  const jwk = await exportJWK(pair.publicKey as CryptoKey);
  return new SignJWT({ jti: randomUUID(), iat: Math.floor(clock.now() / 1000), ...claims })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
    .sign(pair.privateKey as CryptoKey);
}

Nonces(
  "oauth4webapi: use_dpop_nonce, a retry with the nonce, then calls with it; a proof without one is refused",
  async () => {
    const w = await newWorld(test, clock, "http://127.0.0.1:9/callback/dpop-nonces");
    const pair = await oauth.generateKeyPair("ES256", { extractable: true });
    const client = clientOf(w);
    const DPoP = oauth.DPoP(client, pair);
    const auth = oauth.ClientSecretPost(w.clientSecret);
    const request = () => oauth.clientCredentialsGrantRequest(as, client, auth, {}, { DPoP, ...insecure });
    const first = await request();
    assert.is(first.status, 400);
    const nonce = first.headers.get("dpop-nonce");
    assert.ok(nonce);
    assert.equal(await first.clone().json(), {
      error: "use_dpop_nonce",
      error_description: `Send the DPoP proof again with the nonce ${nonce} (also in the DPoP-Nonce header).`,
      code: "oauth.dpop_nonce_required",
    });
    try {
      await oauth.processClientCredentialsResponse(as, client, first);
      assert.unreachable("a use_dpop_nonce answer was processed as tokens");
    } catch (error) {
      assert.ok(oauth.isDPoPNonceError(error));
    }
    const tokens = await oauth.processClientCredentialsResponse(as, client, await request());
    assert.is(tokens.token_type, "dpop");
    const itemsUrl = new URL(`${test.base}/v1/items`);
    const call = await oauth.protectedResourceRequest(tokens.access_token, "GET", itemsUrl, undefined, undefined, {
      DPoP,
      ...insecure,
    });
    assert.is(`${call.status} ${((await call.json()) as { code: string }).code}`, "503 company.not_provisioned");

    const ath = accessTokenHash(tokens.access_token);
    const send = async (dpop: string) => {
      const answer = await fetch(itemsUrl, { headers: { authorization: `DPoP ${tokens.access_token}`, dpop } });
      const body = (await answer.json()) as { code: string };
      return {
        outcome: `${answer.status} ${body.code}`,
        challenge: answer.headers.get("www-authenticate"),
        nonce: answer.headers.get("dpop-nonce"),
      };
    };
    assert.equal(await send(await handProof(pair, { htm: "GET", htu: itemsUrl.href, ath })), {
      outcome: "401 partner.dpop_nonce_required",
      challenge: 'DPoP error="use_dpop_nonce", algs="ES256 ES384 PS256 RS256 EdDSA"',
      nonce,
    });
    const withNonce = await send(await handProof(pair, { htm: "GET", htu: itemsUrl.href, ath, nonce }));
    assert.is(withNonce.outcome, "503 company.not_provisioned");
    // Two periods later the nonce is refused, and the answer hands out the current one.
    clock.advance(2 * dpopNoncePeriodSeconds * 1000);
    const stale = await send(await handProof(pair, { htm: "GET", htu: itemsUrl.href, ath, nonce }));
    assert.is(stale.outcome, "401 partner.dpop_nonce_required");
    assert.ok(stale.nonce && stale.nonce !== nonce);
  },
);

Nonces.run();
