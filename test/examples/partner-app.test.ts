// examples/partner-app against a started app, the consent in Debian's chromium (playwright-core): the start page,
// /connect to the consent site, sign-in and Allow, back at the example's redirect URI, which exchanged the code and
// shows the token's claims and the first GET /v1/items; Deny shown as access_denied; a callback with no
// authorization in progress refused; the settings read from demo.json; the menu of a store (sold-out items greyed, a
// paused store's banner) kept current by the webhook events; an order's lines shown with their modifiers. Without
// chromium the browser tests report themselves skipped with the install command.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { browserTestTimeoutMs, chromiumAvailable, chromiumPath, needsChromium } from "../support/browser.js";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { Subscription } from "../../examples/partner-app/events.js";
import { createMemoryTokenStore, createPartnerClient } from "../../examples/partner-app/partner-client.js";
import { createExampleServer, type ExampleServer } from "../../examples/partner-app/server.js";
import { loadExampleSettings } from "../../examples/partner-app/settings.js";
import { demoRedirectUri, type DemoWorld } from "../../src/demo/provision-demo.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { newApp, newOrganization, newSandboxMerchant } from "../support/sandbox.js";
import { credentialServiceOf, freePort, startTestApp, type TestApp } from "../support/test-app.js";

const Example = suite("examples/partner-app", {}, { timeoutMs: browserTestTimeoutMs });
const clock = createManualClock(Date.now());
const timeout = 30_000;

let test: TestApp;
let example: http.Server;
let exampleApp: ExampleServer;
let subscriptions: Subscription[] = [];
let fullPair: { clientId: string; clientSecret: string };
let orderingPair: { clientId: string; clientSecret: string };
let exampleBase = "";
let merchant: Awaited<ReturnType<typeof newSandboxMerchant>>;
let clientId = "";
let browser: BrowserContext | undefined;
let userDataDir = "";

Example.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { WEBHOOK_ALLOW_LOOPBACK: "1" } });
  const credentials = credentialServiceOf(test, clock);
  const organizationId = await newOrganization(credentials);
  merchant = await newSandboxMerchant(credentials, organizationId);
  const app = await newApp(credentials, organizationId, Product.FULL);
  clientId = app.sandbox.clientId;
  fullPair = app.sandbox;
  const port = await freePort();
  exampleBase = `http://127.0.0.1:${port}`;
  const redirectUri = `${exampleBase}/callback`;
  await credentials.setRedirectUris({ appId: app.appId, redirectUris: [redirectUri] });
  const ordering = await newApp(credentials, organizationId, Product.ONLINE_ORDER);
  orderingPair = ordering.sandbox;
  exampleApp = createExampleServer({
    baseUrl: test.base,
    authUrl: test.auth,
    ...app.sandbox,
    redirectUri,
    environment: "sandbox",
    loginHint: merchant.owner.email,
    onlineOrder: { ...ordering.sandbox, merchantId: merchant.companyId },
  });
  example = exampleApp.server;
  await new Promise<void>((resolve) => example.listen(port, "127.0.0.1", resolve));
  subscriptions = await exampleApp.subscribeToEvents();
  if (chromiumAvailable) {
    userDataDir = await mkdtemp(join(tmpdir(), "pa-example-chromium-"));
    browser = await chromium.launchPersistentContext(userDataDir, {
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
});

Example.after(async () => {
  await browser?.close();
  example?.closeAllConnections();
  await new Promise((resolve) => example?.close(resolve));
  await test?.stop();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
});

/** A test that drives chromium: reported skipped without it, as the others run. */
const inBrowser = (name: string, test: () => Promise<void>) => Example(name, test, needsChromium);

inBrowser(
  "start page, consent in chromium, Allow: the example exchanged the code, shows the claims and five items",
  async () => {
    const page = await browser!.newPage();
    page.setDefaultTimeout(timeout);
    await page.goto(`${exampleBase}/`);
    assert.match(await page.locator("main").innerText(), `sign in as ${merchant.owner.email}`);
    await page.getByRole("link", { name: "Connect a merchant" }).click();
    await page.getByLabel("Email").fill(merchant.owner.email);
    await page.getByLabel("Password").fill(merchant.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Connect an app" }).waitFor();
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(`${exampleBase}/callback?`)),
      page.getByRole("button", { name: "Allow" }).click(),
    ]);
    await page.getByRole("heading", { name: `Connected merchant ${merchant.companyId}` }).waitFor();
    const claims = JSON.parse(await page.locator("#claims").innerText()) as Record<string, unknown>;
    assert.is(claims["companyId"], merchant.companyId);
    assert.is(claims["client_id"], clientId);
    assert.is(claims["env"], "SANDBOX");
    assert.is(claims["product"], "FULL");
    assert.is(claims["aud"], "partnerapi-app");
    assert.is(await page.locator("#items li").count(), 5);
    // Prices as people read them: the UK sandbox merchant's minor units as pounds and pence (£6.22, never "622 GBP").
    for (const line of await page.locator("#items li").allInnerTexts())
      assert.match(line, /^.+ \(.+\): £[0-9,]+\.[0-9]{2}$/, line);
    // The code is spent and the pending authorization gone: reloading the callback starts nothing again.
    const again = await page.reload();
    assert.is(again?.status(), 400);
    await page.getByRole("heading", { name: "No authorization in progress" }).waitFor();
    await page.close();
  },
);

inBrowser("Deny on the consent screen: the example says access_denied", async () => {
  const page = await browser!.newPage();
  page.setDefaultTimeout(timeout);
  await page.goto(`${exampleBase}/connect`); // the consent site remembers the owner's sign-in from the first test
  await page.getByRole("heading", { name: "Connect an app" }).waitFor();
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(`${exampleBase}/callback?`)),
    page.getByRole("button", { name: "Deny" }).click(),
  ]);
  await page.getByRole("heading", { name: "The merchant was not connected" }).waitFor();
  assert.match(await page.locator("#error").innerText(), /^access_denied: /);
  await page.close();
});

Example(
  "place an order: the ONLINE_ORDER app's form, the order placed, and the order seen moving as the sandbox merchant accepts it",
  async () => {
    const form = await fetch(`${exampleBase}/orders`);
    assert.is(form.status, 200);
    const html = await form.text();
    const storeId = /name="storeId"><option value="(\d+)"/.exec(html)?.[1];
    const itemId = /name="itemId"><option value="(\d+)"/.exec(html)?.[1];
    assert.ok(storeId && itemId, html);
    const placed = await fetch(`${exampleBase}/orders`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ storeId, itemId, quantity: "2", customer: "Example test" }).toString(),
      redirect: "manual",
    });
    assert.is(placed.status, 303);
    const location = placed.headers.get("location")!;
    assert.match(location, /^\/orders\/\d+$/);
    const pending = await (await fetch(`${exampleBase}${location}`)).text();
    assert.match(pending, '<strong id="status">PENDING</strong>');
    assert.match(pending, '<meta http-equiv="refresh" content="3">');
    // The automatic sandbox merchant's step (10 s by default) on the test's clock: the page then shows it accepted.
    clock.advance(10_000);
    await test.app.orderTimers.get(merchant.region as never)!.runDue();
    assert.match(await (await fetch(`${exampleBase}${location}`)).text(), '<strong id="status">ACCEPTED</strong>');
  },
);

/** The menu page of `storeId` once `done` holds for its HTML (the events that change it arrive by webhook). */
async function menuWhen(storeId: number, done: (html: string) => boolean): Promise<string> {
  let html = "";
  for (let tries = 0; tries < 300; tries++) {
    html = await (await fetch(`${exampleBase}/menu?storeId=${storeId}`)).text();
    if (done(html)) return html;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the menu page never showed what was awaited: ${html.slice(0, 2000)}`);
}

Example(
  "the menu: a store's items with their groups, sold-out items and modifiers greyed, a paused store's banner, kept current by item.updated and store.updated",
  async () => {
    // The FULL app sells items out; the ONLINE_ORDER app pauses the store with the sandbox helper.
    const full = createPartnerClient({ baseUrl: test.base, ...fullPair, tokenStore: createMemoryTokenStore() });
    await full.connectSandbox(merchant.companyId);
    const catalogue = full.merchant(merchant.companyId);
    const ordering = createPartnerClient({ baseUrl: test.base, ...orderingPair, tokenStore: createMemoryTokenStore() });
    await ordering.connectSandbox(merchant.companyId);
    const { stores } = await catalogue.stores.list();
    const store2 = stores[1]!.id;
    const pause = async (body: Record<string, unknown>) => {
      const answer = await fetch(`${test.base}/v1/sandbox/stores/${store2}/online-ordering`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${await ordering.merchant(merchant.companyId).accessToken()}`,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      assert.is(answer.status, 200, await answer.text());
    };

    const first = await menuWhen(store2, () => true);
    assert.match(first, `<h1>Menu of ${stores[1]!.name}</h1>`);
    const itemIds = [...first.matchAll(/<li data-item-id="(\d+)"/g)].map((match) => Number(match[1]));
    assert.is(itemIds.length, 300, "every item of the seeded menu");
    const soldOut = (html: string) =>
      [...html.matchAll(/<li data-item-id="(\d+)" class="sold-out" aria-disabled="true">/g)].map((match) =>
        Number(match[1]),
      );
    assert.equal(soldOut(first), [itemIds[2]], "the seeded sold-out item, greyed");
    assert.match(first, /Bread \(choose 1\)<ul>.*?Sourdough \+£0\.60/);
    assert.match(first, /Extras \(up to 3\)/);
    assert.match(
      first,
      /<li data-modifier-id="\d+" class="sold-out">Avocado \+£1\.50 <span class="label">\(sold out\)<\/span><\/li>/,
    );
    assert.not.match(first, 'id="paused"');

    // An item sold out in store 2: item.updated for that store greys it; one sold out in store 1 leaves it alone.
    await catalogue.items.setAvailability(store2, itemIds[0]!, { available: false });
    await catalogue.items.setAvailability(stores[0]!.id, itemIds[1]!, { available: false });
    const greyed = await menuWhen(store2, (html) => soldOut(html).includes(itemIds[0]!));
    assert.equal(soldOut(greyed), [itemIds[0], itemIds[2]]);

    // Paused with a reason: the banner; resumed: gone.
    await pause({ status: "PAUSED", reason: "Kitchen busy" });
    const paused = await menuWhen(store2, (html) => html.includes('id="paused"'));
    assert.match(
      paused,
      `<p id="paused" role="status">${stores[1]!.name} is not taking online orders now: Kitchen busy.</p>`,
    );
    await pause({ status: "ACCEPTING" });
    await menuWhen(store2, (html) => !html.includes('id="paused"'));

    // On sale again: no longer greyed.
    await catalogue.items.setAvailability(store2, itemIds[0]!, { available: true });
    await catalogue.items.setAvailability(stores[0]!.id, itemIds[1]!, { available: true });
    assert.equal(soldOut(await menuWhen(store2, (html) => soldOut(html).length === 1)), [itemIds[2]]);
  },
);

async function waitUntil(done: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("never happened");
}

/** The events page's rows (received, type, app, merchant, what, webhook-id) once `done` holds for them. */
async function eventRowsWhen(done: (rows: string[][]) => boolean): Promise<string[][]> {
  let rows: string[][] = [];
  for (let tries = 0; tries < 300; tries++) {
    const html = await (await fetch(`${exampleBase}/events`)).text();
    rows = [
      ...html.matchAll(
        /<tr><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td><code>(.*?)<\/code><\/td><\/tr>/g,
      ),
    ].map((match) => match.slice(1));
    if (done(rows)) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the events page never showed what was awaited: ${JSON.stringify(rows)}`);
}

Example(
  "events: the example registered an endpoint per app, receives the order's events verified, lists them once each, and refuses a forged one",
  async () => {
    assert.equal(
      subscriptions.map(({ app, url }) => [app, url]),
      [
        ["FULL (sandbox)", `${exampleBase}/webhooks/full`],
        ["ONLINE_ORDER (sandbox)", `${exampleBase}/webhooks/orders`],
      ],
    );
    // The order placed by the test before, created and then accepted, reaches both apps: each holds a grant for the
    // organization's sandbox merchant and may read orders.
    const apps = ["FULL (sandbox)", "ONLINE_ORDER (sandbox)"];
    const accepted = (row: string[]) => row[4]!.endsWith(": ACCEPTED");
    const rows = await eventRowsWhen((seen) =>
      apps.every((app) => seen.some((row) => row[2] === app && accepted(row))),
    );
    for (const app of apps) {
      const orderEvents = rows.filter((row) => row[1]!.startsWith("online_order.") && row[2] === app);
      assert.equal(
        orderEvents.map((row) => [row[1], row[3], row[4]!.replace(/^order \d+/, "order")]),
        [
          ["online_order.updated", String(merchant.companyId), "order: ACCEPTED"],
          ["online_order.created", String(merchant.companyId), "order: PENDING"],
        ],
        app,
      );
    }
    // "Send a test event": one webhook.test per endpoint, each arriving at its own path.
    const sent = await fetch(`${exampleBase}/events`, { method: "POST", redirect: "manual" });
    assert.is(sent.status, 303);
    assert.is(sent.headers.get("location"), "/events");
    const tests = (await eventRowsWhen((seen) => seen.filter((row) => row[1] === "webhook.test").length === 2)).filter(
      (row) => row[1] === "webhook.test",
    );
    assert.equal(tests.map((row) => row[2]).sort(), ["FULL (sandbox)", "ONLINE_ORDER (sandbox)"]);
    assert.equal(
      tests.map((row) => row[4]).sort(),
      subscriptions.map(({ endpointId }) => `test of endpoint ${endpointId}`).sort(),
    );

    // A resent delivery arrives again with the same webhook-id: listed once (at-least-once delivery, deduplicated).
    const ordering = subscriptions[1]!;
    const client = createPartnerClient({ baseUrl: test.base, ...orderingPair });
    const { deliveries } = await client.webhookEndpoints.deliveries(ordering.endpointId);
    const created = deliveries.find((delivery) => delivery.eventType === "online_order.created")!;
    assert.is(created.state, "SUCCEEDED");
    assert.is(created.attempts[0]!.statusCode, 204);
    const resent = await client.webhookEndpoints.resend(ordering.endpointId, created.id);
    assert.is(resent.eventId, created.eventId);
    await waitUntil(async () => {
      const latest = await client.webhookEndpoints.deliveries(ordering.endpointId);
      return latest.deliveries.find((delivery) => delivery.id === created.id)!.attempts.length === 2;
    });
    const after = await eventRowsWhen(() => true);
    assert.is(after.filter((row) => row[5] === created.eventId && row[2] === "ONLINE_ORDER (sandbox)").length, 1);

    // Not signed with the endpoint's secret: 400 and not listed; a path that is no endpoint: 404.
    const forged = await fetch(`${exampleBase}/webhooks/orders`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": "msg_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")}`,
      },
      body: JSON.stringify({ type: "webhook.test", timestamp: new Date().toISOString(), data: {} }),
    });
    assert.is(forged.status, 400);
    assert.is(await forged.text(), "No matching signature found");
    assert.is((await fetch(`${exampleBase}/webhooks/none`, { method: "POST", body: "{}" })).status, 404);
    assert.ok((await eventRowsWhen(() => true)).every((row) => row[5] !== "msg_forged"));

    // A restart of the example finds its endpoints by URL and takes a new secret for each: same endpoints, still verified.
    const again = await exampleApp.subscribeToEvents();
    assert.equal(again, subscriptions);
    const [full] = await createPartnerClient({ baseUrl: test.base, ...fullPair }).webhookEndpoints.list();
    assert.ok(full!.previousSecretExpiresAt, "the previous secret signs beside the new one for a while");
    await fetch(`${exampleBase}/events`, { method: "POST" });
    await eventRowsWhen((seen) => seen.filter((row) => row[1] === "webhook.test").length === 4);
  },
);

Example("a callback without an authorization in progress is 400; an unknown path 404", async () => {
  const callback = await fetch(`${exampleBase}/callback?code=x&state=y&merchant_id=1`);
  assert.is(callback.status, 400);
  assert.match(await callback.text(), "<h1>No authorization in progress</h1>");
  assert.is((await fetch(`${exampleBase}/nothing`)).status, 404);
  // /connect redirects to the consent site's authorization endpoint with PKCE S256 and a state, and sets the session.
  const connect = await fetch(`${exampleBase}/connect`, { redirect: "manual" });
  assert.is(connect.status, 302);
  const location = new URL(connect.headers.get("location")!);
  assert.is(`${location.origin}${location.pathname}`, `${test.auth}/oauth/authorize`);
  assert.is(location.searchParams.get("client_id"), clientId);
  assert.is(location.searchParams.get("redirect_uri"), `${exampleBase}/callback`);
  assert.is(location.searchParams.get("code_challenge_method"), "S256");
  assert.match(
    connect.headers.get("set-cookie")!,
    /^example_session=[A-Za-z0-9_-]{32}; Path=\/; HttpOnly; SameSite=Lax$/,
  );
});

Example(
  "settings: demo.json's FULL app (sandbox pair by default, production on request) and redirect URI; the environment overrides",
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "pa-example-settings-"));
    try {
      const pair = (name: string) => ({ clientId: `lp_app_${name}`, clientSecret: `lp_sk_${name}` });
      const login = (email: string) => ({ email, password: "secret" });
      const demo: DemoWorld = {
        baseUrl: "http://127.0.0.1:8080/",
        authUrl: "http://127.0.0.1:8081",
        grpcUrl: "http://127.0.0.1:8090",
        redirectUri: demoRedirectUri,
        organizationId: 1,
        console: login("owner.1@demo-console.partner-api.test"),
        apps: {
          full: { appId: "app_full", sandbox: pair("sbfull"), production: pair("pkfull") },
          onlineOrder: { appId: "app_oo", sandbox: pair("sboo"), production: pair("pkoo") },
          adsr: {
            appId: "app_adsr",
            sandbox: { ...pair("sbadsr"), apiKey: "k1" },
            production: { ...pair("pkadsr"), apiKey: "k2" },
          },
          inReview: { appId: "app_review", product: "FULL", sandbox: pair("sbreview") },
        },
        merchants: {
          sandbox: [{ companyId: 7, region: "uk", owner: login("owner.7@sandbox.test") }],
          live: [
            {
              companyId: 9,
              region: "us",
              owner: login("owner.9@demo.test"),
              employee: login("employee.9@demo.test"),
              storeIds: [1],
            },
          ],
        },
      };
      await writeFile(join(dataDir, "demo.json"), JSON.stringify(demo));
      const path = join(dataDir, "demo.json");
      assert.equal(await loadExampleSettings({ DATA_DIR: dataDir }), {
        baseUrl: "http://127.0.0.1:8080",
        authUrl: "http://127.0.0.1:8081",
        clientId: "lp_app_sbfull",
        clientSecret: "lp_sk_sbfull",
        redirectUri: "http://127.0.0.1:9999/callback",
        environment: "sandbox",
        loginHint: `owner.7@sandbox.test (its password is in ${path})`,
        // The "place an order" page: the ONLINE_ORDER app's sandbox pair and the first sandbox merchant.
        onlineOrder: { clientId: "lp_app_sboo", clientSecret: "lp_sk_sboo", merchantId: 7 },
      });
      const overridden = await loadExampleSettings({
        DATA_DIR: dataDir,
        ORDER_CLIENT_ID: "lp_app_mine",
        ORDER_CLIENT_SECRET: "lp_sk_mine",
        ORDER_MERCHANT_ID: "42",
      });
      assert.equal(overridden.onlineOrder, { clientId: "lp_app_mine", clientSecret: "lp_sk_mine", merchantId: 42 });
      const production = await loadExampleSettings({
        DATA_DIR: dataDir,
        EXAMPLE_ENVIRONMENT: "production",
        BASE_URL: "https://api.example.test/",
      });
      assert.equal(
        [production.clientId, production.clientSecret, production.baseUrl, production.loginHint],
        ["lp_app_pkfull", "lp_sk_pkfull", "https://api.example.test", `owner.9@demo.test (its password is in ${path})`],
      );
      // Another app's client id: the demo's owner could not approve it (another organization), so no hint is shown.
      const ownApp = await loadExampleSettings({
        DATA_DIR: dataDir,
        CLIENT_ID: "lp_app_sbmine",
        CLIENT_SECRET: "lp_sk_sbmine",
      });
      assert.equal([ownApp.clientId, ownApp.loginHint], ["lp_app_sbmine", undefined]);
      const sameApp = await loadExampleSettings({ DATA_DIR: dataDir, CLIENT_ID: "lp_app_sbfull" });
      assert.is(sameApp.loginHint, `owner.7@sandbox.test (its password is in ${path})`);
      try {
        await loadExampleSettings({ DATA_DIR: join(dataDir, "none") });
        assert.unreachable("no demo.json and no BASE_URL must stop the start");
      } catch (error) {
        assert.match((error as Error).message, "BASE_URL is not set");
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);

Example("an order's page shows each line's modifiers as placed", async () => {
  const ordering = createPartnerClient({ baseUrl: test.base, ...orderingPair, tokenStore: createMemoryTokenStore() });
  await ordering.connectSandbox(merchant.companyId);
  const shop = ordering.merchant(merchant.companyId);
  const [store1] = (await shop.stores.list()).stores;
  // The seeded sandwich (the fourth item): Bread is required, Extras up to three.
  const sandwich = (await shop.items.list({ limit: 4 })).items[3]!;
  const [bread, extras] = sandwich.modifierGroups;
  const order = await shop.orders.place({
    storeId: store1!.id,
    lines: [
      {
        itemId: sandwich.id,
        quantity: 1,
        modifiers: [{ modifierId: bread!.modifiers[2]!.id }, { modifierId: extras!.modifiers[1]!.id, quantity: 2 }],
      },
    ],
    fulfilment: { type: "PICKUP" },
    customer: { name: "Example test" },
    externalReference: `example-modifiers-${Date.now()}`,
  });
  const html = await (await fetch(`${exampleBase}/orders/${order.id}`)).text();
  assert.match(html, `<li>1 × ${sandwich.name} (Sourdough, 2 × Bacon): £`);
});

Example.run();
