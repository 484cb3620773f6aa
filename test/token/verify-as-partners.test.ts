// What the API guide ("Both kinds of token") tells a partner to do, done with the libraries partners use: jose's
// jwtVerify with the issuer, audience, typ and algorithm the guide lists accepts an access token, and refuses it
// with the issuer written without its trailing slash (the guide's warning); openid-client discovers the server with
// `algorithm: "oauth2"`, and its default (OpenID Connect) discovery gets a 404 whose body names the RFC 8414
// document (issue 42).
import { readFile } from "node:fs/promises";
import { createRemoteJWKSet, jwtVerify } from "jose";
import * as openid from "openid-client";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { suite } from "../support/suite.js";
import { decide, newWorld, startTestApp, type TestApp } from "../support/test-app.js";

const Partners = suite("token/verify-as-partners");
const clock = createManualClock(Date.now());
let test: TestApp;

Partners.before(async () => {
  test = await startTestApp({ clock, redis: false });
});
Partners.after(async () => {
  await test.stop();
});

/** An access token from a plain code exchange. */
async function accessToken(): Promise<string> {
  const world = await newWorld(test, clock, "http://127.0.0.1:9/callback/verify-as-partners");
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
  return ((await answer.json()) as { access_token: string }).access_token;
}

Partners(
  "jose's jwtVerify with the guide's checks accepts a token; the issuer without its slash refuses it",
  async () => {
    const metadata = (await (await fetch(`${test.base}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    // The guide: the issuer is {baseUrl} with its trailing slash.
    assert.is(metadata.issuer, `${test.base}/`);
    const token = await accessToken();
    const jwks = createRemoteJWKSet(new URL(".well-known/jwks.json", metadata.issuer));
    // jose reads the clock itself: the test app's manual clock started at the real now and has not moved.
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: metadata.issuer,
      audience: "partnerapi-app",
      typ: "at+jwt",
      algorithms: ["RS256"],
    });
    assert.is(payload.iss, metadata.issuer);
    assert.is(payload.aud, "partnerapi-app");
    assert.is(protectedHeader.typ, "at+jwt");
    try {
      await jwtVerify(token, jwks, { issuer: metadata.issuer.replace(/\/$/, ""), audience: "partnerapi-app" });
      assert.unreachable("the issuer without its trailing slash is not the token's");
    } catch (error) {
      assert.is((error as { code?: string }).code, "ERR_JWT_CLAIM_VALIDATION_FAILED");
      assert.is((error as { claim?: string }).claim, "iss");
    }
  },
);

Partners(
  "openid-client: algorithm oauth2 discovers the server; OpenID discovery gets a 404 naming RFC 8414's document",
  async () => {
    const server = new URL(`${test.base}/`);
    const config = await openid.discovery(server, "lp_app_any", "secret", undefined, {
      algorithm: "oauth2",
      execute: [openid.allowInsecureRequests],
    });
    assert.is(config.serverMetadata().issuer, `${test.base}/`);
    assert.is(config.serverMetadata().token_endpoint, `${test.base}/v1/oauth/token`);

    const answer = await fetch(`${test.base}/.well-known/openid-configuration`);
    assert.is(answer.status, 404);
    const body = (await answer.json()) as { code: string; message: string };
    assert.is(body.code, "request.not_an_openid_provider");
    assert.is(
      body.message,
      "This is an OAuth 2.0 authorization server, not an OpenID Provider: its metadata is at /.well-known/oauth-authorization-server (RFC 8414).",
    );
    // Any other unknown path keeps the plain 404.
    const other = await fetch(`${test.base}/.well-known/nothing-here`);
    assert.is(other.status, 404);
    assert.is(((await other.json()) as { code: string }).code, "request.route_not_found");
    try {
      await openid.discovery(server, "lp_app_any", "secret", undefined, { execute: [openid.allowInsecureRequests] });
      assert.unreachable("OpenID Connect discovery finds no openid-configuration");
    } catch (error) {
      assert.match(String((error as { cause?: { status?: number } }).cause?.status ?? error), "404");
    }
  },
);

Partners(
  "the API guide's jose example, with its own values, verifies a real token; its openid-client example too",
  async () => {
    const guide = await readFile(new URL("../../docs/api-guide.md", import.meta.url), "utf8");
    const section = guide.slice(
      guide.indexOf("### Both kinds of token"),
      guide.indexOf("### Sender-constrained tokens"),
    );
    const jose = /```ts\n(import \{ createRemoteJWKSet, jwtVerify \} from "jose";[\s\S]*?)```/.exec(section)?.[1];
    assert.ok(jose, "the guide's jose example");
    const value = (pattern: RegExp) => pattern.exec(jose!)?.[1];
    const exampleBase = value(/const baseUrl = "([^"]+)"/)!;
    // The example's issuer is its base URL with the trailing slash; the real one is the metadata's.
    assert.match(exampleBase, /^https:\/\/[^/]+\/$/);
    assert.match(jose!, "issuer: baseUrl,");
    assert.match(jose!, 'new URL(".well-known/jwks.json", baseUrl)');
    const metadata = (await (await fetch(`${test.base}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    assert.is(new URL(".well-known/jwks.json", metadata.issuer).href, metadata.jwks_uri);
    const { protectedHeader, payload } = await jwtVerify(
      await accessToken(),
      createRemoteJWKSet(new URL(".well-known/jwks.json", metadata.issuer)),
      {
        issuer: metadata.issuer,
        audience: value(/audience: "([^"]+)"/)!,
        typ: value(/typ: "([^"]+)"/)!,
        algorithms: [value(/algorithms: \["([^"]+)"\]/)!],
      },
    );
    assert.is(protectedHeader.typ, value(/typ: "([^"]+)"/));
    assert.is(payload.aud, value(/audience: "([^"]+)"/));
    // The table above the example names the same values.
    for (const cell of ["| `aud` | `partnerapi-app` |", "| header `typ` | `at+jwt` |", "`RS256`"])
      assert.match(section, cell);
    // openid-client: the example's option is the one that discovers the server.
    const algorithm = /algorithm: "([^"]+)"/.exec(section)?.[1];
    assert.is(algorithm, "oauth2");
    const config = await openid.discovery(new URL(`${test.base}/`), "lp_app_any", "secret", undefined, {
      algorithm: algorithm as "oauth2",
      execute: [openid.allowInsecureRequests],
    });
    assert.is(config.serverMetadata().issuer, metadata.issuer);
  },
);

Partners.run();
