// An ADSR app's first call over HTTP against the real app (src/console-site/first-call-key.ts): the curl of GET
// /v1/stores with X-API-Key and companyId, which merchants a key reads and the body of a refusal; the run with a
// sandbox key the developer pastes answers 200 for the organization's own active sandbox merchant (granted without
// an access request, spec "Products") and 403 partner.company_not_granted for one that grants nothing (deactivated),
// said in words; a revoked key is 401. The run reaches the front as the developer's address (the key's allowlist
// decides) and counts in the developer's budget; the key is never on a page.
import { createClient, type Client } from "@connectrpc/connect";
import * as assert from "uvu/assert";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { firstCallsPerDeveloper } from "../../src/console-site/first-call.js";
import { messageFor } from "../../src/errors/index.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { escapeHtml } from "../../src/web/html.js";
import { translator } from "../../src/web/i18n.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxWorkspace,
  shownValue,
  signedUpDeveloper,
  textOf,
  type SiteBrowser,
  type SitePage,
} from "../support/console-site.js";
import { grpcTransport } from "../support/internal.js";
import { suite } from "../support/suite.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const KeyCall = suite("console-site/first-call-key");
// Ten minutes into the next real hour: no Redis window this clock names ends during the run.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 10 * 60_000);
let test: TestApp;
let staff: Client<typeof ConsoleService>;
let serial = 0;
const en = (...args: Parameters<ReturnType<typeof translator>>) => escapeHtml(translator("en")(...args));

KeyCall.before(async () => {
  test = await startTestApp({
    clock,
    redis: Boolean(process.env["TEST_REDIS_URL"]),
    env: { TRUST_PROXY: "127.0.0.1" },
  });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
});
KeyCall.after(async () => {
  await test.stop();
});

interface Developer {
  browser: SiteBrowser;
  organizationId: number;
  appId: string;
  companyId: number;
}

/** An admitted developer with an organization, an ADSR app and a sandbox merchant, each of its own. */
async function developer(): Promise<Developer> {
  const browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, `key-call.${process.pid}.${Date.now()}.${++serial}@partner.test`);
  await admittedDeveloper(browser, staff);
  const workspace = await sandboxWorkspace(browser, {
    organization: `Key call ${serial}`,
    app: "Sales reader",
    product: "ADSR",
    merchant: "Corner",
  });
  return { browser, organizationId: workspace.organizationId, appId: workspace.appId, companyId: workspace.companyId };
}

/** A sandbox key made on the app's API keys view: its value (shown once) and its id. */
async function sandboxKey(dev: Developer, name: string): Promise<{ key: string; id: string }> {
  const keys = await dev.browser.get(`/apps/${dev.appId}/api-keys`);
  const made = await dev.browser.post(`/apps/${dev.appId}/api-keys`, { name, environment: "SANDBOX" }, keys);
  assert.is(made.status, 200, made.html);
  const key = shownValue(made.html, "api-key");
  const listed = await dev.browser.get(`/apps/${dev.appId}/api-keys`);
  const ids = [...listed.html.matchAll(/name="api_key_id" value="([^"]+)"/g)].map((match) => match[1]!);
  return { key, id: ids.at(-1)! };
}

/** Runs the key's call for `companyId`; the page and the statuses it shows. */
async function run(
  dev: Developer,
  key: string,
  companyId = dev.companyId,
): Promise<{ page: SitePage; statuses: string[] }> {
  const form = await dev.browser.get(`/apps/${dev.appId}/first-call`);
  const page = await dev.browser.post(
    `/apps/${dev.appId}/first-call`,
    { api_key: key, merchant_id: String(companyId) },
    form,
  );
  return { page, statuses: [...page.html.matchAll(/data-testid="status">(\d+)</g)].map((match) => match[1]!) };
}

KeyCall(
  "the page: the curl with X-API-Key and companyId, which merchants a key reads and the refusal's body; no client secret asked",
  async () => {
    const dev = await developer();
    const before = await dev.browser.get(`/apps/${dev.appId}/first-call`);
    assert.is(before.status, 200);
    // No key yet: said, with the way to make one.
    assert.match(before.html, en("console.firstCallNoKey"));
    assert.match(before.html, `<a href="/apps/${dev.appId}/api-keys">${en("console.createApiKey")}</a>`);
    await sandboxKey(dev, "first");
    const page = await dev.browser.get(`/apps/${dev.appId}/first-call`);
    assert.not.match(page.html, en("console.firstCallNoKey"));
    const text = textOf(page.html);
    assert.match(
      text,
      `curl '${test.config.urls.base}v1/stores?companyId=${dev.companyId}' \\ -H 'X-API-Key: <API_KEY>'`,
    );
    assert.match(text, translator("en")("console.firstCallKeyIntro", { name: "Sales reader" }));
    assert.match(page.html, en("console.firstCallKeyAccess"));
    assert.match(page.html, en("console.firstCallKeyRefusal"));
    // The refusal as the front writes it, in the page's language.
    const refusal = /<pre[^>]*data-testid="refusal-body"><code>([^<]*)<\/code><\/pre>/.exec(page.html);
    assert.ok(refusal, "the refusal body is shown");
    const body = JSON.parse(textOf(refusal![1]!)) as Record<string, unknown>;
    assert.equal(body, {
      status: "error",
      statusCode: 403,
      timestamp: "…",
      path: "/v1/stores",
      message: messageFor("partner.company_not_granted", {}, "en"),
      code: "partner.company_not_granted",
      params: {},
      correlationId: "…",
    });
    // The key's field, a password field; no client secret (an ADSR app's is refused at /v1/token).
    assert.match(
      page.html,
      '<input id="field-api_key" name="api_key" type="password" autocomplete="off" required aria-describedby="field-api_key-hint" dir="ltr">',
    );
    assert.not.match(page.html, 'name="client_secret"');
    assert.not.match(page.html, "/v1/token");
    assert.match(page.html, `name="merchant_id" value="${dev.companyId}" checked>`);

    dev.browser.language = "ar";
    const arabic = await dev.browser.get(`/apps/${dev.appId}/first-call`);
    // A right-to-left string in the JSON sample keeps its direction inside the left-to-right block (jsonSample).
    assert.match(
      arabic.html,
      `"<bdi dir="rtl">${escapeHtml(messageFor("partner.company_not_granted", {}, "ar"))}</bdi>"`,
    );
    assert.match(arabic.html, escapeHtml(translator("ar")("console.firstCallKeyRefusal")));
  },
);

KeyCall(
  "the run: 200 with the stores of the organization's own sandbox merchant; 403 company_not_granted, in words, for a deactivated one; 401 once the key is revoked",
  async () => {
    const dev = await developer();
    const { key, id } = await sandboxKey(dev, "reporting");
    const ran = await run(dev, key);
    assert.is(ran.page.status, 200);
    assert.equal(ran.statuses, ["200"]);
    assert.match(ran.page.html, "&quot;stores&quot;");
    assert.not.match(ran.page.html, en("console.firstCallNotGranted"));
    assert.not.match(ran.page.html, key);

    // A second sandbox merchant, deactivated: it grants the key nothing.
    const organization = `/organizations/${dev.organizationId}`;
    const made = await dev.browser.post(
      `${organization}/sandbox-merchants`,
      { name: "Closed", country: "GB" },
      await dev.browser.get(organization),
    );
    assert.is(made.status, 200, made.html);
    const closed = Number(/\(company (\d+)\) is ready/.exec(made.html)![1]);
    const off = await dev.browser.post(
      `${organization}/sandbox-merchants/${closed}/deactivate`,
      {},
      await dev.browser.get(organization),
    );
    assert.is(off.status, 303, off.html);
    const refused = await run(dev, key, closed);
    assert.is(refused.page.status, 200);
    assert.equal(refused.statuses, ["403"]);
    assert.match(refused.page.html, "&quot;code&quot;: &quot;partner.company_not_granted&quot;");
    assert.match(refused.page.html, en("console.firstCallNotGranted"));
    assert.not.match(refused.page.html, key);

    // Revoked on the API keys view: past the verification cache's bound, the key is refused.
    const keys = await dev.browser.get(`/apps/${dev.appId}/api-keys`);
    const revokedKey = await dev.browser.post(
      `/apps/${dev.appId}/api-keys/revoke`,
      { api_key_id: id, confirm: "yes" },
      keys,
    );
    assert.is(revokedKey.status, 200);
    clock.advance(Math.max(test.config.caches.gatewaySeconds, test.config.caches.credentialSeconds) * 1000);
    const revoked = await run(dev, key);
    assert.equal(revoked.statuses, ["401"]);
    assert.match(revoked.page.html, "partner.api_key_invalid");

    // No key (or none a header can carry): said beside the key field and linked from the summary, no call made,
    // what was typed not given back.
    const keyMissing = en("console.firstCallKeyMissing");
    for (const typed of ["", "lp_ak_sb_with space", "lp_ak_sb_é"]) {
      const missing = await run(dev, typed);
      assert.is(missing.page.status, 200);
      assert.equal(missing.statuses, []);
      assert.match(missing.page.html, `<p class="field-error" id="field-api_key-error">${keyMissing}</p>`);
      assert.match(
        missing.page.html,
        `<li><a href="#field-api_key">${en("console.problemAt", { field: en("console.apiKey"), message: keyMissing })}</a></li>`,
      );
      if (typed !== "") assert.not.match(missing.page.html, typed);
    }
    // Without the page's CSRF token: refused, nothing run.
    const forged = await dev.browser.post(`/apps/${dev.appId}/first-call`, {
      api_key: key,
      merchant_id: String(dev.companyId),
      csrf: "k".repeat(43),
    });
    assert.is(forged.status, 403);
  },
);

KeyCall(
  "the run comes from the developer's address (the key's allowlist decides) and counts in the developer's budget",
  async () => {
    const dev = await developer();
    const { key, id } = await sandboxKey(dev, "allowlisted");
    const allow = async (allowedIps: string) => {
      const keys = await dev.browser.get(`/apps/${dev.appId}/api-keys`);
      const saved = await dev.browser.post(
        `/apps/${dev.appId}/api-keys/allowed-ips`,
        { api_key_id: id, allowedIps },
        keys,
      );
      assert.is(saved.status, 200, saved.html);
      assert.match(saved.html, 'aria-current="page">' + en("console.apiKeysHeading"));
    };
    await allow(dev.browser.address);
    assert.equal((await run(dev, key)).statuses, ["200"]);
    await allow("192.0.2.1");
    const denied = await run(dev, key);
    assert.equal(denied.statuses, ["403"]);
    assert.match(denied.page.html, "partner.ip_denied");

    // Two runs so far; the budget's last ones, then the refusal (429, no call made).
    for (let i = 2; i < firstCallsPerDeveloper; i++) assert.equal((await run(dev, key)).statuses, ["403"]);
    const tooMany = await run(dev, key);
    assert.is(tooMany.page.status, 429);
    assert.equal(tooMany.statuses, []);
    assert.match(tooMany.page.html, en("console.firstCallTooMany"));
    clock.advance(60_000);
    assert.equal((await run(dev, key)).statuses, ["403"]);
  },
);

KeyCall.run();
