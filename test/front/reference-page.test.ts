// src/front/reference-page.ts and GET /v1/reference: the OpenAPI reference rendered by Swagger UI, served by the
// front with every file it needs (no internet access), each with its type, cache and CSP headers; the page names
// no other origin and points at /v1/openapi.json; and, in chromium, it renders the routes under that CSP without a
// violation or a request anywhere else. Without chromium the browser test reports itself skipped.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { browserTestTimeoutMs, chromiumAvailable, chromiumPath, withoutChromium } from "../support/browser.js";
import { skipTest, suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { referenceContentSecurityPolicy } from "../../src/front/reference-page.js";
import { createManualClock } from "../../src/runtime/clock.js";
import { startTestApp, type TestApp } from "../support/test-app.js";

const Reference = suite("front/reference-page", {}, { timeoutMs: browserTestTimeoutMs });
const clock = createManualClock(Date.now());
const timeout = 60_000;
const renderer = fileURLToPath(new URL("../../node_modules/swagger-ui-dist/", import.meta.url));

let test: TestApp;
let page: Response;
let html: string;

Reference.before(async () => {
  test = await startTestApp({ clock, redis: Boolean(process.env["TEST_REDIS_URL"]) });
  page = await fetch(`${test.base}/v1/reference`);
  html = await page.text();
});
Reference.after(async () => {
  await test.stop();
});

/** Every src and href in the page, as written. */
const linksOf = (text: string) =>
  [...text.matchAll(/\b(?:src|href|data-document)="([^"]*)"/g)].map((match) => match[1]!);

Reference("GET /v1/reference: 200 HTML, cacheable for five minutes, with a CSP allowing this origin only", () => {
  assert.is(page.status, 200);
  assert.is(page.headers.get("content-type"), "text/html; charset=utf-8");
  assert.is(page.headers.get("cache-control"), "public, max-age=300");
  assert.is(page.headers.get("x-content-type-options"), "nosniff");
  assert.is(page.headers.get("referrer-policy"), "no-referrer");
  assert.is(
    page.headers.get("content-security-policy"),
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  );
  assert.is(referenceContentSecurityPolicy, page.headers.get("content-security-policy"));
  assert.match(page.headers.get("x-correlation-id") ?? "", /.+/);
  assert.is(page.headers.get("x-ratelimit-limit"), null);
});

Reference("the page names no other origin, has no inline script, and its document is /v1/openapi.json", () => {
  const links = linksOf(html);
  assert.equal(links, [
    "reference/swagger-ui-5.35.0/swagger-ui.css",
    "reference/swagger-ui-5.35.0/favicon-32x32.png",
    "openapi.json",
    "reference/swagger-ui-5.35.0/swagger-ui-bundle.js",
    "reference/start.js",
  ]);
  assert.not.match(html, /https?:|\/\//, "no absolute or protocol-relative URL");
  assert.is(
    [...html.matchAll(/<script\b[^>]*>\s*<\/script>/g)].length,
    [...html.matchAll(/<script\b/g)].length,
    "scripts are files",
  );
  assert.is(new URL("openapi.json", `${test.base}/v1/reference`).pathname, "/v1/openapi.json");
});

Reference(
  "every file the page loads is served from here with its type; the renderer's files cached for a year",
  async () => {
    const expected: Record<string, { type: string; cache: string; file?: string }> = {
      "reference/swagger-ui-5.35.0/swagger-ui.css": {
        type: "text/css; charset=utf-8",
        cache: "public, max-age=31536000, immutable",
        file: "swagger-ui.css",
      },
      "reference/swagger-ui-5.35.0/favicon-32x32.png": {
        type: "image/png",
        cache: "public, max-age=31536000, immutable",
        file: "favicon-32x32.png",
      },
      "reference/swagger-ui-5.35.0/swagger-ui-bundle.js": {
        type: "text/javascript; charset=utf-8",
        cache: "public, max-age=31536000, immutable",
        file: "swagger-ui-bundle.js",
      },
      "reference/start.js": { type: "text/javascript; charset=utf-8", cache: "public, max-age=300" },
      "openapi.json": { type: "application/json", cache: "public, max-age=300" },
    };
    for (const link of linksOf(html)) {
      const want = expected[link];
      assert.ok(want, `${link} is expected`);
      const answer = await fetch(new URL(link, `${test.base}/v1/reference`));
      assert.is(answer.status, 200, link);
      assert.is(answer.headers.get("content-type"), want.type, link);
      assert.is(answer.headers.get("cache-control"), want.cache, link);
      const body = Buffer.from(await answer.arrayBuffer());
      if (want.file)
        assert.ok(body.equals(await readFile(join(renderer, want.file))), `${link} is the renderer's own file`);
    }
    const start = await (await fetch(`${test.base}/v1/reference/start.js`)).text();
    assert.match(start, "validatorUrl: null");
  },
);

Reference("a file the reference does not have is the front's 404, and the page answers GET only", async () => {
  const missing = await fetch(`${test.base}/v1/reference/swagger-ui-5.35.0/index.html`);
  assert.is(missing.status, 404);
  assert.is(((await missing.json()) as { code: string }).code, "request.route_not_found");
  const posted = await fetch(`${test.base}/v1/reference`, { method: "POST" });
  assert.is(posted.status, 404);
  await posted.body?.cancel();
});

if (!chromiumAvailable) {
  Reference("in chromium the page renders the routes from the document", () => skipTest(withoutChromium));
} else {
  Reference(
    "in chromium the page renders the routes from the document, with no CSP violation and no other origin",
    async () => {
      const userDataDir = await mkdtemp(join(tmpdir(), "pa-chromium-"));
      const browser = await chromium.launchPersistentContext(userDataDir, {
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
      try {
        const tab = browser.pages()[0] ?? (await browser.newPage());
        const requested: string[] = [];
        const problems: string[] = [];
        tab.on("request", (request) => requested.push(request.url()));
        tab.on("console", (message) => {
          if (message.type() === "error") problems.push(message.text());
        });
        tab.on("pageerror", (error) => problems.push(error.message));
        await tab.goto(`${test.base}/v1/reference`, { timeout });
        // An operation's summary is its RPC's name (src/front/openapi.ts); its path is shown beside it.
        await tab.getByText("GetDailySalesReport", { exact: true }).waitFor({ state: "visible", timeout });
        await tab.getByText("ExchangeToken", { exact: true }).waitFor({ state: "visible", timeout });
        assert.ok(await tab.locator('[data-path="/v1/reports/daily-sales"]').first().isVisible());
        assert.equal(problems, []);
        assert.equal(
          requested.filter((url) => !url.startsWith(`${test.base}/`) && !url.startsWith("data:")),
          [],
        );
        assert.ok(requested.includes(`${test.base}/v1/openapi.json`));
      } finally {
        await browser.close();
        await rm(userDataDir, { recursive: true, force: true });
      }
    },
  );
}

Reference.run();
