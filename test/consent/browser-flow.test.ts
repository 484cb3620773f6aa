// The whole flow with an independent client nobody here wrote (oauth4webapi) against the real servers, the consent
// happening in Debian's chromium driven by playwright-core: discovery, authorization URL with PKCE and state,
// sign-in and Allow, callback validation, code exchange, validateJwtAccessToken against our JWKS, refresh,
// revocation, and our error bodies as oauth4webapi reads them. Also: a pushed authorization request (RFC 9126), the
// employee card, Deny, and no framing.
// Without chromium these tests report themselves skipped with the install command.
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { browserSuite, chromiumAvailable, chromiumPath } from "../support/browser.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { freePort, newWorld, startTestApp, type TestApp, type World } from "../support/test-app.js";

const Browser = suite("consent/browser-flow", {}, browserSuite);
const clock = createManualClock(Date.now());
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const timeout = 30_000;

let test: TestApp;
let world: World;
let callback: http.Server;
let callbackBase: string;
let browser: BrowserContext;
let userDataDir: string;
let as: oauth.AuthorizationServer;

/** A fresh browser profile per test run: nothing remembered between runs. */
async function launch(): Promise<BrowserContext> {
  userDataDir = await mkdtemp(join(tmpdir(), "pa-chromium-"));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    timeout,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

if (chromiumAvailable) {
  Browser.before(async () => {
    test = await startTestApp({ clock, redis: true });
    const port = await freePort();
    callbackBase = `http://127.0.0.1:${port}`;
    // The app's own server: its callback page, and a page that tries to frame the consent site.
    callback = http.createServer((request, response) => {
      const url = new URL(request.url ?? "/", callbackBase);
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      if (url.pathname === "/frame") {
        response.end(
          `<!doctype html><title>framer</title><iframe title="consent" src="${url.searchParams.get("src")!.replace(/"/g, "&quot;")}"></iframe>`,
        );
      } else {
        response.end("<!doctype html><title>callback</title><p>back at the app</p>");
      }
    });
    await new Promise<void>((resolve) => callback.listen(port, "127.0.0.1", resolve));
    world = await newWorld(test, clock, `${callbackBase}/callback`);
    const issuer = new URL(`${test.base}/`);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
    );
    browser = await launch();
  });

  Browser.after(async () => {
    await browser?.close();
    await new Promise((resolve) => callback?.close(resolve));
    await test?.stop();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  });
}

/** The authorization URL oauth4webapi's helpers make: PKCE S256 and a random state. */
async function authorizationUrl() {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", world.clientId);
  url.searchParams.set("redirect_uri", world.redirectUri);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", "items.read");
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  return { url, codeVerifier, state };
}

async function signInAndDecide(
  user: { email: string; password: string },
  url: URL,
  decision: "Allow" | "Deny" | undefined,
) {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  await page.goto(url.href);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Connect an app" }).waitFor();
  if (decision) {
    await Promise.all([
      page.waitForURL((target) => target.href.startsWith(world.redirectUri)),
      page.getByRole("button", { name: decision }).click(),
    ]);
  }
  return page;
}

/**
 * Allow on the consent screen of `page`, then, as oauth4webapi's client does, the callback's checks (state, iss) and
 * the code's exchange with its PKCE verifier: the callback's URL and the token response. Closes the page.
 */
async function allowAndExchange(
  page: Page,
  flow: { client: oauth.Client; auth: oauth.ClientAuth; state: string; codeVerifier: string },
) {
  const { client, auth, state, codeVerifier } = flow;
  await Promise.all([
    page.waitForURL((target) => target.href.startsWith(world.redirectUri)),
    page.getByRole("button", { name: "Allow" }).click(),
  ]);
  const callbackUrl = new URL(page.url());
  await page.close();
  const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
  const exchanged = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, auth, params, world.redirectUri, codeVerifier, insecure),
  );
  return { callbackUrl, exchanged };
}

Browser(
  "oauth4webapi: PKCE + state, consent in chromium, callback, exchange, JWT validation, refresh, revocation",
  async () => {
    const client: oauth.Client = { client_id: world.clientId };
    const auth = oauth.ClientSecretPost(world.clientSecret);
    assert.equal(as.code_challenge_methods_supported, ["S256"]);

    const { url, codeVerifier, state } = await authorizationUrl();
    const page = await signInAndDecide(world.owner, url, undefined);
    // The consent screen names the app, its organization, the bundle and the company.
    const text = await page.locator("main").innerText();
    assert.match(text, `App `);
    assert.match(text, "oauth test");
    assert.match(text, "See and change your categories");
    // The company by its name (the world's merchant is "Shop <n>"), never by its number.
    assert.match(text, /Shop \d+/);
    assert.not.match(text, `company ${world.companyId}`);
    const { callbackUrl, exchanged } = await allowAndExchange(page, { client, auth, state, codeVerifier });
    assert.is(callbackUrl.searchParams.get("merchant_id"), String(world.companyId));
    assert.is(exchanged.token_type, "bearer");
    assert.is(exchanged.expires_in, 900);
    assert.is(exchanged["merchant_id"], world.companyId);

    const resource = (token: string) =>
      new Request(`${test.base}/v1/items`, { headers: { authorization: `Bearer ${token}` } });
    const claims = await oauth.validateJwtAccessToken(as, resource(exchanged.access_token), "partnerapi-app", insecure);
    assert.is(claims.client_id, world.clientId);
    assert.is(claims.sub, world.appId);
    assert.is(claims["companyId"], world.companyId);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, exchanged.refresh_token!, insecure),
    );
    assert.is.not(refreshed.refresh_token, exchanged.refresh_token);
    await oauth.validateJwtAccessToken(as, resource(refreshed.access_token), "partnerapi-app", insecure);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, insecure),
    );
    try {
      await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, insecure),
      );
      assert.unreachable("a revoked grant must not refresh");
    } catch (error) {
      assert.instance(error, oauth.ResponseBodyError);
      const failure = error as oauth.ResponseBodyError;
      assert.is(failure.status, 400);
      assert.is(failure.error, "invalid_grant");
      assert.is(failure.cause["code"], "oauth.grant_revoked");
    }
  },
);

Browser(
  "PAR (RFC 9126): oauth4webapi pushes, chromium carries only client_id and request_uri, a reload, Allow, exchange",
  async () => {
    const client: oauth.Client = { client_id: world.clientId };
    const auth = oauth.ClientSecretBasic(world.clientSecret);
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(
        as,
        client,
        auth,
        {
          response_type: "code",
          redirect_uri: world.redirectUri,
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
          code_challenge_method: "S256",
        },
        insecure,
      ),
    );
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set("client_id", world.clientId);
    url.searchParams.set("request_uri", pushed.request_uri);
    // The owner's session from the first test is still there: the consent screen at once, and again on a reload.
    const page = await browser.newPage();
    page.setDefaultTimeout(timeout);
    await page.goto(url.href);
    await page.getByRole("heading", { name: "Connect an app" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Connect an app" }).waitFor();
    const { exchanged } = await allowAndExchange(page, { client, auth, state, codeVerifier });
    assert.is(exchanged.token_type, "bearer");
    assert.is(exchanged["merchant_id"], world.companyId);
  },
);

Browser(
  "an employee sees the owner card and no Allow button; the owner's Deny redirects with access_denied and the state",
  async () => {
    const { url } = await authorizationUrl();
    const employeeBrowser = await launch();
    try {
      const page = await employeeBrowser.newPage();
      page.setDefaultTimeout(timeout);
      await page.goto(url.href);
      await page.getByLabel("Email").fill(world.employee.email);
      await page.getByLabel("Password").fill(world.employee.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Connect an app" }).waitFor();
      await page.getByRole("heading", { name: "Ask your account owner" }).waitFor();
      assert.is(await page.getByRole("button", { name: "Allow" }).count(), 0);
    } finally {
      await employeeBrowser.close();
    }

    const denied = await authorizationUrl();
    const page = await browser.newPage();
    page.setDefaultTimeout(timeout);
    await page.goto(denied.url.href); // the owner's session from the first test is still there
    await Promise.all([
      page.waitForURL((target) => target.href.startsWith(world.redirectUri)),
      page.getByRole("button", { name: "Deny" }).click(),
    ]);
    const back = new URL(page.url());
    await page.close();
    assert.is(back.searchParams.get("error"), "access_denied");
    assert.is(back.searchParams.get("state"), denied.state);
    assert.is(back.searchParams.get("code"), null);
    try {
      oauth.validateAuthResponse(as, { client_id: world.clientId }, back, denied.state);
      assert.unreachable("access_denied must be reported");
    } catch (error) {
      assert.instance(error, oauth.AuthorizationResponseError);
      assert.is((error as oauth.AuthorizationResponseError).error, "access_denied");
    }
  },
);

Browser("the consent site inside an iframe does not render", async () => {
  const { url } = await authorizationUrl();
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  await page.goto(`${callbackBase}/frame?src=${encodeURIComponent(url.href)}`, { waitUntil: "load" });
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
  assert.ok(frame, "the iframe exists");
  assert.is(await page.frameLocator("iframe").getByRole("button", { name: "Allow" }).count(), 0);
  assert.is(await page.frameLocator("iframe").getByRole("button", { name: "Sign in" }).count(), 0);
  assert.not.match(frame!.url(), "/oauth/authorize?");
  await page.close();
});

Browser.run();
