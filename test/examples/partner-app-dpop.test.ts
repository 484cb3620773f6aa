// examples/partner-app with EXAMPLE_DPOP's settings (issue 40): the authorization request is pushed first (the
// consent site's URL carries client_id and request_uri only), the code is exchanged with a DPoP proof, and the token
// the example shows is bound to its key (`cnf.jkt`) and reads the items with a proof. The app runs on the real clock:
// the client's proofs carry the real time in `iat`, which the server checks within its window (RFC 9449 section 11.1).
// Without chromium the test reports itself skipped with the install command.
import type http from "node:http";
import type { Browser } from "playwright-core";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createExampleServer } from "../../examples/partner-app/server.js";
import { loadExampleSettings } from "../../examples/partner-app/settings.js";
import { systemClock } from "../../src/runtime/clock.js";
import { browserTestTimeoutMs, chromiumAvailable, launchChromium, needsChromium } from "../support/browser.js";
import { newApp, newOrganization, newSandboxMerchant } from "../support/sandbox.js";
import { suite } from "../support/suite.js";
import { credentialServiceOf, freePort, startTestApp, type TestApp } from "../support/test-app.js";

const ExampleDpop = suite("examples/partner-app-dpop", {}, { timeoutMs: browserTestTimeoutMs });
const timeout = 30_000;

let test: TestApp;
let example: http.Server | undefined;
let exampleBase = "";
let merchant: Awaited<ReturnType<typeof newSandboxMerchant>>;
let browser: Browser | undefined;

ExampleDpop.before(async () => {
  test = await startTestApp({ clock: systemClock, redis: false });
  const credentials = credentialServiceOf(test, systemClock);
  const organizationId = await newOrganization(credentials);
  merchant = await newSandboxMerchant(credentials, organizationId);
  const app = await newApp(credentials, organizationId, Product.FULL);
  const port = await freePort();
  exampleBase = `http://127.0.0.1:${port}`;
  const redirectUri = `${exampleBase}/callback`;
  await credentials.setRedirectUris({ appId: app.appId, redirectUris: [redirectUri] });
  const settings = await loadExampleSettings({
    BASE_URL: test.base,
    AUTH_URL: test.auth,
    CLIENT_ID: app.sandbox.clientId,
    CLIENT_SECRET: app.sandbox.clientSecret,
    REDIRECT_URI: redirectUri,
    EXAMPLE_DPOP: "1",
    DATA_DIR: "/nonexistent",
  });
  assert.is(settings.dpop, true);
  example = createExampleServer({ ...settings, loginHint: merchant.owner.email }).server;
  await new Promise<void>((resolve) => example!.listen(port, "127.0.0.1", resolve));
  if (chromiumAvailable) browser = await launchChromium();
});

ExampleDpop.after(async () => {
  await browser?.close();
  example?.closeAllConnections();
  await new Promise((resolve) => (example ? example.close(resolve) : resolve(undefined)));
  await test?.stop();
});

ExampleDpop(
  "EXAMPLE_DPOP=1: pushed request, consent, a DPoP-bound code exchange, and the items read with a proof",
  async () => {
    const page = await browser!.newPage();
    page.setDefaultTimeout(timeout);
    await page.goto(`${exampleBase}/`);
    await page.getByRole("link", { name: "Connect a merchant" }).click();
    // PAR: the browser's URL at the consent site names the pushed request, never the parameters themselves.
    const authorize = new URL(page.url());
    assert.is(authorize.origin, new URL(test.auth).origin);
    assert.match(authorize.searchParams.get("request_uri") ?? "", /^urn:ietf:params:oauth:request_uri:/);
    assert.is(authorize.searchParams.get("redirect_uri"), null);
    assert.is(authorize.searchParams.get("code_challenge"), null);
    await page.getByLabel("Email").fill(merchant.owner.email);
    await page.getByLabel("Password").fill(merchant.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Connect an app" }).waitFor();
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(`${exampleBase}/callback?`)),
      page.getByRole("button", { name: "Allow" }).click(),
    ]);
    await page.getByRole("heading", { name: `Connected merchant ${merchant.companyId}` }).waitFor();
    const claims = JSON.parse(await page.locator("#claims").innerText()) as { cnf?: { jkt?: unknown } };
    // Bound to the example's key: the thumbprint (RFC 7638, SHA-256, base64url) in cnf.jkt (RFC 9449 section 6).
    assert.match(String(claims.cnf?.jkt), /^[A-Za-z0-9_-]{43}$/);
    // The first page of items was read with that token and a proof: a Bearer-only client could not have.
    assert.is(await page.locator("#items li").count(), 5);
    await page.close();
  },
  needsChromium,
);

ExampleDpop.run();
