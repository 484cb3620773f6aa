// The page shell and the static assets: lang and dir, the hashed stylesheet, skip link, one main and one h1, the
// language switch; the CSP allows no inline script; the stylesheet is cacheable forever under its hash.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { assetReply, copyScriptPath, stylesheetPath } from "../../src/web/assets.js";
import { html } from "../../src/web/html.js";
import { contentSecurityPolicy, hiddenFields, page, pageHeaders } from "../../src/web/layout.js";

const Layout = suite("web/layout");

const siteCss = readFileSync(new URL("../../src/web/site.css", import.meta.url));
/** What is served: the shipped fonts' @font-face rules (src/web/assets.ts), then site.css as written. */
const css = Buffer.from(assetReply("GET", stylesheetPath, undefined)!.body);
const cssHash = createHash("sha256").update(css).digest("hex").slice(0, 16);

Layout("the shell names its language and direction, links the hashed stylesheet, and has one main and one h1", () => {
  const ar = page({
    locale: "ar",
    title: "<Apps>",
    path: "/apps",
    query: new URLSearchParams("org=2"),
    body: html`<p>x</p>`,
  });
  assert.match(ar, '<html lang="ar" dir="rtl">');
  assert.match(ar, `<link rel="stylesheet" href="/assets/site.${cssHash}.css">`);
  assert.match(ar, '<a class="skip-link" href="#main">انتقل إلى المحتوى الرئيسي</a>');
  assert.match(ar, '<main id="main" class="site-main" tabindex="-1">\n<h1>&lt;Apps&gt;</h1>');
  assert.is(ar.match(/<main/g)?.length, 1);
  assert.is(ar.match(/<h1/g)?.length, 1);
  assert.match(ar, '<a href="/apps?org=2&amp;lang=en" lang="en" hreflang="en">English</a>');
  assert.match(ar, '<a href="/apps?org=2&amp;lang=ar" lang="ar" hreflang="ar" aria-current="true">العربية</a>');
  assert.match(ar, '<a href="/apps?org=2&amp;lang=hi" lang="hi" hreflang="hi">हिन्दी</a>');
  assert.not.match(ar, "<script");
  const en = page({ locale: "en", title: "Apps", path: "/", body: "", copyScript: true });
  assert.match(en, '<html lang="en" dir="ltr">');
  assert.match(en, `<script src="${copyScriptPath}" defer></script>`);
  assert.match(en, "<title>Apps · LP Partners</title>");
});

Layout('the <title> names the section when it says more than the <h1>, after "Error:" when a form was refused', () => {
  const section = { locale: "en", title: "Stock sync", documentTitle: "Settings · Stock sync", path: "/" } as const;
  const shown = page({ ...section, body: "" });
  assert.match(shown, "<title>Settings · Stock sync · LP Partners</title>");
  assert.match(shown, "<h1>Stock sync</h1>");
  const refused = page({ ...section, errorSummary: html`<div id="error-summary"></div>`, body: "" });
  assert.match(refused, "<title>Error: Settings · Stock sync · LP Partners</title>");
  assert.match(refused, '<div id="error-summary"></div><h1>Stock sync</h1>');
});

Layout("hidden fields are escaped and skip undefined values", () => {
  assert.is(
    hiddenFields({ csrf: 'a"b', skip: undefined }).toString(),
    '<input type="hidden" name="csrf" value="a&quot;b">',
  );
});

Layout("the CSP allows only our own files, no inline script, no framing; extra form targets are added", () => {
  assert.is(
    contentSecurityPolicy(),
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  assert.match(contentSecurityPolicy(["https://app.example"]), "form-action 'self' https://app.example;");
  const headers = pageHeaders({ secure: true });
  assert.is(headers["X-Frame-Options"], "DENY");
  assert.is(headers["Cache-Control"], "no-store");
  assert.is(headers["Strict-Transport-Security"], "max-age=31536000");
  assert.is(pageHeaders({ secure: false })["Strict-Transport-Security"], undefined);
});

Layout("the stylesheet is served under its hash, immutable, with an ETag that answers 304", () => {
  assert.is(stylesheetPath, `/assets/site.${cssHash}.css`);
  const reply = assetReply("GET", stylesheetPath, undefined)!;
  assert.is(reply.status, 200);
  assert.is(reply.headers["Content-Type"], "text/css; charset=utf-8");
  assert.is(reply.headers["Cache-Control"], "public, max-age=31536000, immutable");
  assert.is(reply.headers["ETag"], `"${cssHash}"`);
  assert.is(reply.headers["Content-Length"], String(css.length));
  assert.ok(css.subarray(css.length - siteCss.length).equals(siteCss), "site.css as written, after the fonts");
  const fonts = css.subarray(0, css.length - siteCss.length).toString("utf8");
  assert.is(fonts.match(/@font-face \{/g)?.length, 4);
  assert.is(fonts.match(/url\(\/assets\/[a-z-]+-[47]00\.[0-9a-f]{16}\.woff2\)/g)?.length, 4, "only our own font files");
  assert.is(assetReply("GET", stylesheetPath, `"${cssHash}"`)!.status, 304);
  assert.is(assetReply("GET", stylesheetPath, `W/"${cssHash}"`)!.status, 304);
  assert.is(assetReply("HEAD", stylesheetPath, undefined)!.body, "");
  assert.is(assetReply("POST", stylesheetPath, undefined)!.status, 405);
  assert.is(assetReply("GET", "/assets/site.0000000000000000.css", undefined), undefined);
  assert.is(assetReply("GET", copyScriptPath, undefined)!.headers["Content-Type"], "text/javascript; charset=utf-8");
});

Layout("the stylesheet uses logical properties only (RTL-safe) and no external resource", () => {
  const text = siteCss.toString("utf8");
  assert.not.match(text, /(?:margin|padding|border)-(?:left|right)\s*:/);
  assert.not.match(text, /(?:^|[\s;{])(?:left|right)\s*:/m);
  assert.not.match(text, /text-align:\s*(?:left|right)/);
  assert.not.match(text, /url\(|@import|https?:/);
  assert.match(text, /@media \(prefers-color-scheme: dark\)/);
  assert.match(text, /:focus-visible/);
});

Layout("dark mode only recolours: its blocks set custom properties of :root and nothing else", () => {
  // test/support/browser.ts relies on it: a page checked by axe in light is checked again in dark for colour only.
  const text = siteCss.toString("utf8");
  const blocks = [...text.matchAll(/@media[^{]*prefers-color-scheme[^{]*\{((?:[^{}]*\{[^{}]*\})*[^{}]*)\}/g)];
  assert.is(blocks.length, 1);
  for (const [, body] of blocks) {
    const rules = [...body!.matchAll(/([^{}]+)\{([^{}]*)\}/g)];
    assert.equal(
      rules.map(([, selector]) => selector!.trim()),
      [":root"],
    );
    const declarations = rules[0]![2]!
      .split(";")
      .map((line) => line.trim())
      .filter(Boolean);
    assert.ok(declarations.length > 0);
    for (const declaration of declarations) assert.match(declaration, /^--[a-z-]+:\s*[^;]+$/, declaration);
  }
});

Layout.run();
