// The request log and the usage chart with real traffic through the front: a developer's sandbox app calls
// /v1/items with a real token (successes, a validation refusal, a 429 over PARTNER_RATE_LIMIT, a call without a
// token), then reads its log in the console (filters by status and merchant, the detail view with the error body
// the app received, nothing of a successful call's body, no token anywhere), its usage chart (the 429 drawn and in
// the table), and the merchant's connected-apps page names when the app last called.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createClient, type Client } from "@connectrpc/connect";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { translator } from "../../src/web/i18n.js";
import { grpcTransport } from "../support/internal.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { createBrowser } from "../support/consent.js";
import {
  admittedDeveloper,
  createSiteBrowser,
  sandboxToken,
  sandboxWorkspace,
  signedUpDeveloper,
  textOf,
  type SiteBrowser,
} from "../support/console-site.js";

const Log = suite("console-site/request-log");
// The middle of a minute: every call of the test falls in one minute of the usage chart.
const clock = createManualClock(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 20 * 60_000 + 5_000);
const en = translator("en");
let test: TestApp;
let staff: Client<typeof ConsoleService>;

Log.before(async () => {
  test = await startTestApp({ clock, redis: false, env: { TRUST_PROXY: "127.0.0.1", PARTNER_RATE_LIMIT: "3" } });
  staff = createClient(ConsoleService, grpcTransport(test.app.grpc.port, test.internal.staff));
  await staff.publishAgreementVersion({ title: "Developer agreement", url: "https://partner.test/agreement/v1" });
});
Log.after(async () => {
  await test.stop();
});

interface Traffic {
  browser: SiteBrowser;
  appId: string;
  companyId: number;
  owner: { email: string; password: string };
  accessToken: string;
  correlationOf429: string;
  clientId: string;
}

async function traffic(): Promise<Traffic> {
  const browser = createSiteBrowser(test);
  await signedUpDeveloper(test, browser, `log.${process.pid}.${Date.now()}@partner.test`);
  await admittedDeveloper(browser, staff);
  const workspace = await sandboxWorkspace(browser, {
    organization: "Log org",
    app: "Stock sync",
    product: "FULL",
    merchant: "Corner shop",
  });
  const { appId, companyId, owner } = workspace;
  const accessToken = await sandboxToken(test, workspace);
  const call = (query: string, authorization = `Bearer ${accessToken}`) =>
    fetch(`${test.base}/v1/items${query}`, { headers: { authorization } });
  // Three calls use the minute's budget of 3 (a validation refusal counts: the limit is checked first); the fourth is 429.
  assert.is((await call("?limit=1")).status, 200);
  assert.is((await call("?limit=abc")).status, 400);
  assert.is((await call("?limit=2")).status, 200);
  const limited = await call("?limit=1");
  assert.is(limited.status, 429);
  // No token: nobody's call, in no app's log.
  assert.is((await call("?limit=1", "")).status, 401);
  return {
    browser,
    appId,
    companyId,
    owner,
    accessToken,
    correlationOf429: limited.headers.get("x-correlation-id")!,
    clientId: workspace.clientId,
  };
}

let shared: Traffic | undefined;
const once = async () => (shared ??= await traffic());

/** The rows of the log table: [status, error code, path] each. */
function rowsOf(html: string): string[][] {
  return [
    ...html.matchAll(
      /<tr>\n<td>.*?<\/td>\n<td class="ltr"><code>GET<\/code> <code>([^<]*)<\/code><\/td>\n<td><span class="status [^"]+">(\d{3})<\/span>(?: <code class="ltr error-code">([^<]*)<\/code>)?/gs,
    ),
  ].map((match) => [match[2]!, match[3] ?? "", match[1]!]);
}

Log(
  "the log lists every call of the app, newest first, with its status and error code; a call without a token is not there",
  async () => {
    const { browser, appId, accessToken } = await once();
    const page = await browser.get(`/apps/${appId}/requests`);
    assert.is(page.status, 200, page.html);
    assert.match(page.html, `<h1>${en("console.requestLogTitle", { name: "Stock sync" })}</h1>`);
    assert.equal(rowsOf(page.html), [
      ["429", "partner.rate_limited", "/v1/items"],
      ["200", "", "/v1/items"],
      ["400", "request.invalid_fields", "/v1/items"],
      ["200", "", "/v1/items"],
    ]);
    assert.match(page.html, `<a href="/apps/${appId}/requests?environment=production">Production</a>`);
    assert.match(page.html, `<a href="/apps/${appId}/requests?environment=sandbox" aria-current="page">Sandbox</a>`);
    assert.not.match(page.html, accessToken);
    // Production has no calls.
    const production = await browser.get(`/apps/${appId}/requests?environment=production`);
    assert.equal(rowsOf(production.html), []);
    assert.match(textOf(production.html), en("console.noRequests"));
    // The app's page links to the log and the usage.
    const appPage = await browser.get(`/apps/${appId}`);
    assert.match(appPage.html, `<a href="/apps/${appId}/requests">${en("console.requestLogLink")}</a>`);
    assert.match(appPage.html, `<a href="/apps/${appId}/usage">${en("console.usageLink")}</a>`);
  },
);

Log(
  "filters: by status class, by one status, by merchant; a merchant that is no number is refused beside its field",
  async () => {
    const { browser, appId, companyId } = await once();
    const statuses = async (query: string) =>
      rowsOf((await browser.get(`/apps/${appId}/requests?${query}`)).html).map((row) => row[0]);
    assert.equal(await statuses("status=2xx"), ["200", "200"]);
    assert.equal(await statuses("status=4xx"), ["429", "400"]);
    assert.equal(await statuses("status=429"), ["429"]);
    assert.equal(await statuses("status=5xx"), []);
    assert.equal(await statuses(`merchant=${companyId}`), ["429", "200", "400", "200"]);
    assert.equal(await statuses(`merchant=${companyId + 1}`), []);
    const refused = await browser.get(`/apps/${appId}/requests?merchant=abc`);
    assert.is(refused.status, 400);
    assert.match(refused.html, `aria-invalid="true" aria-describedby="filter-merchant-error"`);
    assert.match(
      refused.html,
      `<p class="field-error" id="filter-merchant-error">${en("console.merchantFilterInvalid")}</p>`,
    );
    assert.match(refused.html, `value="abc"`);
  },
);

/** Every row of the log table: [method, path, status, error code]. */
function callsOf(html: string): string[][] {
  return [
    ...html.matchAll(
      /<tr>\n<td>.*?<\/td>\n<td class="ltr"><code>([A-Z]+)<\/code> <code>([^<]*)<\/code><\/td>\n<td><span class="status [^"]+">(\d{3})<\/span>(?: <code class="ltr error-code">([^<]*)<\/code>)?/gs,
    ),
  ].map((match) => [match[1]!, match[2]!, match[3]!, match[4] ?? ""]);
}

/** A moment as a datetime-local field holds it, in UTC. */
const typedMoment = (ms: number) => new Date(ms).toISOString().slice(0, 16);

Log(
  "filters: a time range, a path's start, a method, a correlation id's start; each typed wrong refused beside it",
  async () => {
    const { browser, appId, correlationOf429 } = await once();
    const calls = async (query: string) => callsOf((await browser.get(`/apps/${appId}/requests?${query}`)).html);
    const items = ["GET", "/v1/items"];
    // The token call that made the test's token is in the log too (POST /v1/token), before the four item calls.
    assert.equal(
      (await calls("")).map((call) => call.slice(0, 2)),
      [items, items, items, items, ["POST", "/v1/token"]],
    );
    assert.equal((await calls("route=/v1/items")).length, 4);
    assert.equal(await calls("route=/v1/token"), [["POST", "/v1/token", "200", ""]]);
    assert.equal(await calls("route=/v1/orders"), []);
    assert.equal((await calls("method=POST")).length, 1);
    assert.equal(
      (await calls("method=GET&status=4xx")).map((call) => call[2]),
      ["429", "400"],
    );
    // A path's own % and _ are matched as themselves, not as patterns.
    assert.equal(await calls("route=/v1/item_"), []);
    assert.equal(await calls("route=/v1/%25"), []);
    assert.equal(await calls(`correlation=${correlationOf429.slice(0, 8)}`), [
      ["GET", "/v1/items", "429", "partner.rate_limited"],
    ]);
    const now = clock.now();
    assert.equal((await calls(`from=${typedMoment(now - 60_000)}`)).length, 5);
    assert.equal(await calls(`from=${typedMoment(now + 60_000)}`), []);
    assert.equal(await calls(`to=${typedMoment(now - 60_000)}`), []);
    assert.equal((await calls(`from=${typedMoment(now - 60_000)}&to=${typedMoment(now + 60_000)}`)).length, 5);
    // Typed wrong: 400, said beside the field, what was typed kept, and no list.
    for (const [query, id, message] of [
      ["from=yesterday", "filter-from", en("console.timeFilterInvalid")],
      ["from=2026-02-30T10:00", "filter-from", en("console.timeFilterInvalid")],
      [`from=${typedMoment(now)}&to=${typedMoment(now - 3_600_000)}`, "filter-to", en("console.timeRangeBackwards")],
      ["route=v1/items", "filter-route", en("console.routeFilterInvalid")],
      ["correlation=two%20words", "filter-correlation", en("console.correlationFilterInvalid")],
    ] as const) {
      const refused = await browser.get(`/apps/${appId}/requests?${query}`);
      assert.is(refused.status, 400, query);
      assert.match(refused.html, `<p class="field-error" id="${id}-error">${message}</p>`);
      assert.match(refused.html, new RegExp(`<input id="${id}"[^>]*aria-invalid="true"`));
      assert.equal(callsOf(refused.html), [], query);
    }
  },
);

Log(
  "the app's token calls are logged, a refused one (401 invalid_client) with its body; an unknown client id's are in no log; neither is counted in the usage",
  async () => {
    const { browser, appId, clientId } = await once();
    const token = (id: string, secret: string) =>
      fetch(`${test.base}/v1/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "client_credentials", client_id: id, client_secret: secret }),
      });
    const refused = await token(clientId, "not-the-secret");
    assert.is(refused.status, 401);
    assert.is(((await refused.json()) as { error: string }).error, "invalid_client");
    const correlation = refused.headers.get("x-correlation-id")!;
    const stranger = await token(`${clientId.slice(0, -4)}zzzz`, "not-the-secret");
    assert.is(stranger.status, 401);
    // The record is written once the client id is looked up, after the answer: wait for it, never for a time.
    let page = await browser.get(`/apps/${appId}/requests?route=/v1/oauth/token`);
    for (let tries = 0; tries < 50 && callsOf(page.html).length === 0; tries++) {
      await new Promise((resolve) => setImmediate(resolve));
      page = await browser.get(`/apps/${appId}/requests?route=/v1/oauth/token`);
    }
    assert.equal(callsOf(page.html), [["POST", "/v1/oauth/token", "401", "developer.invalid_client"]]);
    const id = /href="\/apps\/[^/]+\/requests\/(\d+)"/.exec(page.html)![1]!;
    const detail = await browser.get(`/apps/${appId}/requests/${id}`);
    assert.match(detail.html, `<dd class="ltr"><code>${correlation}</code></dd>`);
    assert.match(detail.html, "invalid_client");
    assert.not.match(detail.html, "not-the-secret");
    // The stranger's call is nobody's: not here, and no other call was added.
    assert.equal(
      (await browser.get(`/apps/${appId}/requests?method=POST`)).html.match(/<code>POST<\/code>/g)?.length,
      2,
    );
  },
);

Log(
  "the detail view: the 429's error body as the app received it, its correlation id; a success keeps no body",
  async () => {
    const { browser, appId, correlationOf429, accessToken } = await once();
    const page = await browser.get(`/apps/${appId}/requests?status=429`);
    const id = /href="\/apps\/[^/]+\/requests\/(\d+)"/.exec(page.html)![1]!;
    const detail = await browser.get(`/apps/${appId}/requests/${id}`);
    assert.is(detail.status, 200, detail.html);
    assert.match(detail.html, `<dd class="ltr"><code>${correlationOf429}</code></dd>`);
    const body = JSON.parse(
      /<pre tabindex="0" aria-labelledby="body-heading"><code>([^<]*)<\/code><\/pre>/
        .exec(detail.html)![1]!
        .replaceAll("&quot;", '"'),
    );
    // The partner envelope exactly as the app received it (its params, message and correlation id).
    assert.is(body.status, "error");
    assert.is(body.statusCode, 429);
    assert.is(body.code, "partner.rate_limited");
    assert.is(body.path, "/v1/items");
    assert.is(body.correlationId, correlationOf429);
    const success = /href="\/apps\/[^/]+\/requests\/(\d+)"/.exec(
      (await browser.get(`/apps/${appId}/requests?status=2xx`)).html,
    )![1]!;
    const ok = await browser.get(`/apps/${appId}/requests/${success}`);
    assert.match(textOf(ok.html), en("console.noErrorBody"));
    assert.not.match(ok.html, "<pre");
    assert.not.match(ok.html, accessToken);
    // Another app's call, or none: not found, in words.
    const missing = await browser.get(`/apps/${appId}/requests/999999999`);
    assert.is(missing.status, 404);
    assert.match(textOf(missing.html), "This call is not in the app's request log");
  },
);

Log(
  "the usage chart: the minute's 4 requests and its 429 drawn against the limit of 3, and the same in the table",
  async () => {
    const { browser, appId } = await once();
    const page = await browser.get(`/apps/${appId}/usage`);
    assert.is(page.status, 200, page.html);
    // No viewBox: the labels keep the page's size at any width (usage-chart.ts); the axis ends at 5, over the 4.
    assert.match(
      page.html,
      '<svg class="usage-chart" width="100%" height="220" role="img" aria-labelledby="chart-title"',
    );
    assert.not.match(/<svg class="usage-chart"[^>]*>/.exec(page.html)![0], "viewBox");
    assert.match(page.html, 'data-axis-top="5"');
    assert.is([...page.html.matchAll(/<line class="chart-requests"/g)].length, 1);
    assert.is([...page.html.matchAll(/<line class="chart-limited"/g)].length, 1);
    // The limit of 3 drawn where it falls, under the top.
    assert.match(page.html, '<line class="chart-limit" x1="0" x2="100%"');
    assert.match(page.html, `>${en("console.usageLimitLine", { limit: "3" })}</text>`);
    assert.match(textOf(page.html), en("console.usageIntro", { limit: "3" }));
    const row =
      /<tbody><tr><th scope="row">.*?<\/th><td>(\d+)<\/td><td>(\d+)<\/td><td>(?:<strong class="status status-429">)?(\d+)/s.exec(
        page.html,
      );
    assert.equal(row?.slice(1), ["4", "4", "1"]);
  },
);

Log("the merchant's connected-apps page says when the app last called", async () => {
  const { appId, owner } = await once();
  const consent = createBrowser(test);
  const form = await consent.get("/oauth/connections");
  const signedIn = await consent.signIn(form, owner);
  assert.is(signedIn.status, 303, signedIn.html);
  const page = await consent.get("/oauth/connections");
  assert.match(page.html, `class="asker-name">Stock sync</h2>`);
  assert.match(page.html, new RegExp(`Last used <time datetime="${new Date(clock.now()).toISOString().slice(0, 16)}`));
  assert.ok(appId);
});

Log.run();
