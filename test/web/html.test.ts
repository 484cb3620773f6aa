// The auto-escaping template: every interpolation is escaped for text and quoted attributes, unless it is itself
// an html result or raw() on purpose; arrays join; objects are refused rather than printed.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { escapeHtml, html, join, raw, SafeHtml } from "../../src/web/html.js";

const Html = suite("web/html");

Html("text and attribute values are escaped: the five HTML specials and the backtick", () => {
  const value = `<script>alert("x")</script> & 'y' \`z\``;
  assert.is(
    html`<p title="${value}">${value}</p>`.toString(),
    `<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39; &#96;z&#96;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39; &#96;z&#96;</p>`,
  );
});

Html("an attribute value cannot break out of its quotes, whatever the string", () => {
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (value) => {
      const out = html`<a title="${value}" data-x='${value}'>x</a>`.toString();
      const inner = out.slice('<a title="'.length, out.indexOf('" data-x='));
      assert.not.ok(inner.includes('"') || inner.includes("'") || inner.includes("<") || inner.includes(">"));
      assert.is(out.endsWith("'>x</a>"), true);
    }),
  );
});

Html("html results and raw() are inserted as they are; nested templates escape once", () => {
  const inner = html`<b>${"a<b"}</b>`;
  assert.is(html`<p>${inner}</p>`.toString(), "<p><b>a&lt;b</b></p>");
  assert.is(html`<p>${raw("<i>trusted</i>")}</p>`.toString(), "<p><i>trusted</i></p>");
  assert.ok(inner instanceof SafeHtml);
});

Html("arrays are joined (each item escaped unless safe); false, null and undefined write nothing", () => {
  assert.is(html`<ul>${["<1>", html`<li>2</li>`]}</ul>`.toString(), "<ul>&lt;1&gt;<li>2</li></ul>");
  assert.is(html`[${false}${null}${undefined}]`.toString(), "[]");
  assert.is(html`${0} ${true}`.toString(), "0 true");
  assert.is(join(["a<", html`<br>`, "b"], ", ").toString(), "a&lt;, <br>, b");
});

Html("an object is refused, not printed as [object Object]", () => {
  // biome-ignore lint/plugin: the cast is the test: the runtime refusal of what the type forbids (a caller past the compiler).
  const notText = { toString: () => "<x>" } as unknown as string;
  assert.throws(() => html`${notText}`, /cannot interpolate a value of type object/);
});

Html("escapeHtml alone escapes the same characters", () => {
  assert.is(escapeHtml(`&<>"'\``), "&amp;&lt;&gt;&quot;&#39;&#96;");
  assert.is(escapeHtml("plain text, عربي, हिन्दी"), "plain text, عربي, हिन्दी");
});

Html.run();
