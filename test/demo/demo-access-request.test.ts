// The demo world's ADSR production key, right after provisioning (what `npm start -- --demo` does): it reads the
// first live merchant's daily sales through an approved access request, over HTTP against the running app, and a
// second provisioning run leaves that one approval in place. The demo's console login opens the console as the
// organization that owns the demo apps.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { provisionDemo } from "../../src/demo/provision-demo.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { createSiteBrowser, textOf } from "../support/console-site.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Demo = suite("demo/demo-access-request");
const clock = createManualClock(Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 + 1_000);
let test: TestApp;

Demo.before(async () => {
  test = await startTestApp({ clock, redis: false });
});
Demo.after(async () => {
  await test.stop();
});

Demo("the demo's production ADSR key reads the first live merchant's daily sales; not the second's", async () => {
  const options = {
    config: test.config,
    logger: silentLogger,
    control: test.app.control.sql,
    regionDatabases: test.app.regionDatabases,
    clock,
  };
  const world = await provisionDemo(options);
  const [first, second] = world.merchants.live;
  const day = (offset: number) => new Date(clock.now() - offset * 86_400_000).toISOString().slice(0, 10);
  const url = (companyId: number) =>
    `${test.base}/v1/reports/daily-sales?companyId=${companyId}&from=${day(6)}&to=${day(0)}`;
  const headers = { "x-api-key": world.apps.adsr.production.apiKey };
  const answer = await fetch(url(first!.companyId), { headers });
  const body = (await answer.json()) as {
    from: string;
    to: string;
    currency: string;
    days: Array<{ date: string; saleCount: number; totalMinor: number }>;
  };
  assert.is(answer.status, 200, JSON.stringify(body));
  assert.is(body.currency, "USD");
  assert.equal(
    body.days.map((row) => row.date),
    [6, 5, 4, 3, 2, 1, 0].map(day),
  );
  assert.ok(body.days.reduce((sum, row) => sum + row.saleCount, 0) > 0, "ninety days of sales: the last week has some");
  const other = await fetch(url(second!.companyId), { headers });
  assert.is(other.status, 403);
  assert.is(((await other.json()) as { code: string }).code, "partner.company_not_granted");

  await provisionDemo(options);
  const rows = await test.app.control.sql`
    select state from control.access_requests where app_id = ${world.apps.adsr.appId} and company_id = ${first!.companyId}`;
  assert.equal(
    rows.map((row) => row["state"]),
    ["APPROVED"],
  );
});

Demo(
  "demo.json's console login signs in to the console as the owner of the organization that holds the demo apps",
  async () => {
    const world = await provisionDemo({
      config: test.config,
      logger: silentLogger,
      control: test.app.control.sql,
      regionDatabases: test.app.regionDatabases,
      clock,
    });
    const browser = createSiteBrowser(test);
    const form = await browser.get("/sign-in");
    const signedIn = await browser.post("/sign-in", { ...world.console }, form);
    assert.is(signedIn.status, 303, signedIn.html);
    assert.is(signedIn.location, "/");
    const dashboard = await browser.get("/");
    assert.is(dashboard.status, 200);
    assert.match(
      dashboard.html,
      `<a href="/organizations/${world.organizationId}">Demo organization</a> <span class="badge">Owner</span>`,
    );
    const organization = await browser.get(`/organizations/${world.organizationId}`);
    assert.is(organization.status, 200);
    const text = textOf(organization.html);
    for (const app of [world.apps.full, world.apps.onlineOrder, world.apps.adsr, world.apps.inReview])
      assert.match(organization.html, `<a href="/apps/${app.appId}">`);
    for (const name of ["Demo Full", "Demo Online Order", "Demo ADSR", "Demo In Review", "Demo Sandbox London"])
      assert.ok(text.includes(name), name);
    // The owner may manage the apps: the redirect URIs of the ONLINE_ORDER app are a form, not a read-only list.
    const app = await browser.get(`/apps/${world.apps.onlineOrder.appId}/redirect-uris`);
    assert.is(app.status, 200);
    assert.match(app.html, `<form method="post" action="/apps/${world.apps.onlineOrder.appId}/redirect-uris">`);
  },
);

Demo.run();
