// src/web/assets.ts: the sites ship Noto Sans Arabic and Devanagari (regular and bold), so a machine without those
// fonts still shows the ar and hi pages in letters, not boxes. The stylesheet's @font-face rules name each shipped
// file (local() first), each file is served as an immutable font/woff2, and chromium loads it as a font that holds
// the script's letters (a family of the test's own, with no local() to fall back on).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { assetReply, fontPaths, stylesheetPath } from "../../src/web/assets.js";
import { browserTestTimeoutMs, needsChromium, launchChromium } from "../support/browser.js";

const Fonts = suite("web/fonts-browser", {}, { timeoutMs: browserTestTimeoutMs });
let server: http.Server;
let base: string;

Fonts.before(async () => {
  server = http.createServer((request, response) => {
    const reply = assetReply(request.method ?? "GET", request.url ?? "/", request.headers["if-none-match"]);
    if (reply) {
      response.writeHead(reply.status, reply.headers);
      response.end(reply.body);
      return;
    }
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!doctype html><html><head><title>fonts</title></head><body></body></html>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
Fonts.after(async () => {
  await new Promise((resolve) => server.close(resolve));
});

Fonts("the stylesheet names each shipped font, local() first; each is served as an immutable font/woff2", async () => {
  assert.is(fontPaths.length, 4);
  const css = await (await fetch(`${base}${stylesheetPath}`)).text();
  for (const [family, weight, local, path] of [
    ["Noto Sans Arabic", 400, 'local("Noto Sans Arabic"), local("NotoSansArabic-Regular")', fontPaths[0]],
    ["Noto Sans Arabic", 700, 'local("Noto Sans Arabic Bold"), local("NotoSansArabic-Bold")', fontPaths[1]],
    ["Noto Sans Devanagari", 400, 'local("Noto Sans Devanagari"), local("NotoSansDevanagari-Regular")', fontPaths[2]],
    ["Noto Sans Devanagari", 700, 'local("Noto Sans Devanagari Bold"), local("NotoSansDevanagari-Bold")', fontPaths[3]],
  ] as const) {
    assert.match(
      css,
      `@font-face { font-family: "${family}"; font-style: normal; font-weight: ${weight}; font-display: swap; src: ${local}, url(${path}) format("woff2"); unicode-range: U+0`,
    );
    const font = await fetch(`${base}${path}`);
    assert.is(font.status, 200);
    assert.is(font.headers.get("content-type"), "font/woff2");
    assert.is(font.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const body = Buffer.from(await font.arrayBuffer());
    assert.is(body.subarray(0, 4).toString("latin1"), "wOF2");
    assert.ok(body.length > 20_000 && body.length < 100_000, `${path}: ${body.length} bytes`);
  }
});

/** A test that drives chromium: reported skipped without it, as the others run. */
const it = (name: string, test: () => Promise<void>) => Fonts(name, test, needsChromium);

it("chromium loads each shipped file as a font that holds its script's letters", async () => {
  const chromium = await launchChromium();
  try {
    const page = await chromium.newPage();
    await page.goto(base);
    const loaded = await page.evaluate(
      `Promise.all(${JSON.stringify(fontPaths)}.map(async (path, index) => {
        const face = new FontFace("Shipped" + index, "url(" + path + ")");
        await face.load();
        document.fonts.add(face);
        const text = index < 2 ? "مرحبا بالعالم" : "नमस्ते दुनिया";
        return [face.status, document.fonts.check("16px Shipped" + index, text)];
      }))`,
    );
    assert.equal(loaded, [
      ["loaded", true],
      ["loaded", true],
      ["loaded", true],
      ["loaded", true],
    ]);
  } finally {
    await chromium.close();
  }
});

Fonts.run();
