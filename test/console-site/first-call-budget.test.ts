// The console's first call over HTTP against the real app: it reaches the API as the developer's own address
// (an allowlist naming that address passes, one naming another is refused, a forged vouching header is ignored),
// and its runs are counted per developer and per organization, never on the console server's one address that
// every developer shares (src/console-site/first-call.ts, src/runtime/vouched-client.ts).
import { createClient, type Client } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { firstCallsPerDeveloper } from "../../src/console-site/first-call.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { vouchedClientHeader } from "../../src/runtime/vouched-client.js";
import { translator } from "../../src/web/i18n.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxWorkspace,
  signedUpDeveloper,
  type SiteBrowser,
  type SitePage,
} from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { suite } from "../support/suite.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const FirstCall = suite("console-site/first-call-budget");
// Ten minutes into the next real hour: no Redis window this clock names ends during the run.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 10 * 60_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let serial = 0;
const en = translator("en");

FirstCall.before(async () => {
  test = await startTestApp({
    clock,
    redis: Boolean(process.env["TEST_REDIS_URL"]),
    env: { TRUST_PROXY: "127.0.0.1" },
  });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
});
FirstCall.after(async () => {
  await test.stop();
});

interface Developer {
  browser: SiteBrowser;
  appId: string;
  clientId: string;
  secret: string;
  merchantId: string;
}

/** An admitted developer with an organization, a FULL app and a sandbox merchant, each of its own. */
async function developer(): Promise<Developer> {
  const browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, `first-call.${process.pid}.${Date.now()}.${++serial}@partner.test`);
  await admittedDeveloper(browser, staff);
  const workspace = await sandboxWorkspace(browser, {
    organization: `First call ${serial}`,
    app: "Stock sync",
    product: "FULL",
    merchant: "Corner",
    country: "gb",
  });
  const appId = workspace.appId;
  const page = await browser.get(`/apps/${appId}/first-call`);
  return {
    browser,
    appId,
    clientId: workspace.clientId,
    secret: workspace.clientSecret,
    merchantId: /name="merchant_id" value="(\d+)" checked>/.exec(page.html)![1]!,
  };
}

/** Runs the first call with `secret`; the page and the statuses it shows (token, then items). */
async function run(dev: Developer, secret = dev.secret): Promise<{ page: SitePage; statuses: string[] }> {
  const form = await dev.browser.get(`/apps/${dev.appId}/first-call`);
  const page = await dev.browser.post(
    `/apps/${dev.appId}/first-call`,
    { client_secret: secret, merchant_id: dev.merchantId },
    form,
  );
  return { page, statuses: [...page.html.matchAll(/data-testid="status">(\d+)</g)].map((match) => match[1]!) };
}

async function allow(dev: Developer, allowedIps: string): Promise<void> {
  const page = await dev.browser.get(`/apps/${dev.appId}/credentials`);
  const saved = await dev.browser.post(`/apps/${dev.appId}/allowed-ips`, { client_id: dev.clientId, allowedIps }, page);
  assert.is(saved.status, 200, saved.html);
}

FirstCall(
  "the API sees the developer's address: an allowlist naming it passes, one naming another is ip_denied; a forged vouching header is ignored",
  async () => {
    const dev = await developer();
    await allow(dev, dev.browser.address);
    const passed = await run(dev);
    assert.is(passed.page.status, 200);
    assert.equal(passed.statuses, ["200", "200"]);

    await allow(dev, "192.0.2.1");
    const denied = await run(dev);
    assert.equal(denied.statuses, ["403"]);
    assert.match(denied.page.html, "developer.ip_denied");

    // From outside, naming the allowlisted address without the process's secret: the socket's address counts.
    await allow(dev, "198.51.100.77");
    const forged = await fetch(`${test.base}/v1/token`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [vouchedClientHeader]: `198.51.100.77 ${"x".repeat(43)}`,
      },
      body: JSON.stringify({
        grant_type: "client_credentials",
        client_id: dev.clientId,
        client_secret: dev.secret,
        merchant_id: Number(dev.merchantId),
      }),
    });
    assert.is(forged.status, 403);
    assert.is(((await forged.json()) as { error: { code: string } }).error.code, "developer.ip_denied");
  },
);

FirstCall(
  "per developer: ten runs a minute, the eleventh refused (429, no call made); a developer of another organization runs meanwhile; the next minute, runs again",
  async () => {
    const [first, second] = [await developer(), await developer()];
    for (let i = 0; i < firstCallsPerDeveloper; i++) {
      const wrong = await run(first, `${first.secret}x`);
      assert.is(wrong.page.status, 200, `run ${i + 1}`);
      assert.equal(wrong.statuses, ["401"], `run ${i + 1}`);
    }
    const refused = await run(first);
    assert.is(refused.page.status, 429);
    assert.equal(refused.statuses, []);
    assert.match(refused.page.html, en("console.firstCallTooMany"));

    // The other developer's budget, and the API's per-address one, are its own.
    const other = await run(second);
    assert.equal(other.statuses, ["200", "200"]);

    clock.advance(60_000);
    assert.equal((await run(first)).statuses, ["200", "200"]);
  },
);

FirstCall.run();
