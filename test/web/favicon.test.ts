// /favicon.ico on both sites (issue 42): browsers ask for it on every first visit, and it answered 404 on the consent
// site and the console. Now the sites' SVG icon, cached a day (its URL is fixed), over the real listeners.
import * as assert from "uvu/assert";
import { suite } from "../support/suite.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { createManualClock } from "../../src/runtime/clock.js";

const Favicon = suite("web/favicon");
let test: TestApp;

Favicon.before(async () => {
  test = await startTestApp({ clock: createManualClock(Date.now()), redis: Boolean(process.env["TEST_REDIS_URL"]) });
});
Favicon.after(async () => {
  await test.stop();
});

Favicon(
  "GET /favicon.ico answers the SVG icon on the consent site and the console; HEAD too; POST is 405",
  async () => {
    for (const site of [test.auth, test.console]) {
      const answer = await fetch(`${site}/favicon.ico`);
      assert.is(answer.status, 200, site);
      assert.is(answer.headers.get("content-type"), "image/svg+xml", site);
      assert.is(answer.headers.get("cache-control"), "public, max-age=86400", site);
      assert.is(answer.headers.get("x-content-type-options"), "nosniff", site);
      const body = await answer.text();
      assert.match(body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, site);
      const head = await fetch(`${site}/favicon.ico`, { method: "HEAD" });
      assert.is(head.status, 200, site);
      assert.is(head.headers.get("content-length"), String(Buffer.byteLength(body)), site);
      const posted = await fetch(`${site}/favicon.ico`, { method: "POST" });
      assert.is(posted.status, 405, site);
      assert.is(posted.headers.get("allow"), "GET, HEAD", site);
      await posted.text();
    }
  },
);

Favicon.run();
