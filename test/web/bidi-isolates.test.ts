// Arabic messages keep their Latin terms apart (issue 42): inside a right-to-left sentence a run such as
// `client_credentials`, `POST /v1/oauth/par` or `LP Partners` is wrapped in LRI (U+2066) … PDI (U+2069), so the
// bidirectional algorithm lays it out as one left-to-right unit and the sentence's own punctuation (the full stop,
// the comma after it) stays where the Arabic text puts it. Checked over both catalogues: the sites' messages and
// the error catalogue's `ar` messages (they travel in JSON, where no <bdi> can help). docs/decisions.md, "Languages".
import * as assert from "uvu/assert";
import { catalogue } from "../../src/errors/catalogue.js";
import { renderPartnerError } from "../../src/errors/index.js";
import { catalogueOf } from "../../src/web/i18n.js";
import { suite } from "../support/suite.js";

const Isolates = suite("web/bidi-isolates");

const arabic = /[\u0600-\u06FF]/;

/** The Latin letters of `message` outside its isolates, placeholders and plural syntax: none is the rule. */
function bareLatin(message: string): string[] {
  const outside = message
    .replace(/\u2066[^\u2066-\u2069]*\u2069/g, " ")
    .replace(/\{[a-zA-Z]+\}|\{[a-zA-Z]+, plural,|(?:zero|one|two|few|many|other|=\d+) \{/g, " ");
  return outside.match(/\S*[A-Za-z]\S*/g) ?? [];
}

Isolates("every Latin run inside an Arabic message of the sites is isolated (LRI … PDI)", () => {
  const site = catalogueOf("ar") as Record<string, string>;
  const bare = Object.entries(site)
    .filter(([, message]) => arabic.test(message))
    .flatMap(([key, message]) => bareLatin(message).map((run) => `${key}: ${run}`));
  assert.equal(bare, []);
});

Isolates("every Latin run inside an Arabic error message is isolated (LRI … PDI)", () => {
  const bare = Object.entries(catalogue)
    .filter(([, entry]) => arabic.test(entry.messages.ar))
    .flatMap(([code, entry]) => bareLatin(entry.messages.ar).map((run) => `${code}: ${run}`));
  assert.equal(bare, []);
});

Isolates("isolates are balanced: each LRI closed by its PDI, none nested or left open", () => {
  const messages = [
    ...Object.values(catalogueOf("ar") as Record<string, string>),
    ...Object.values(catalogue).map((entry) => entry.messages.ar),
  ];
  for (const message of messages) {
    const marks = message.replace(/[^\u2066\u2068\u2069]/g, "");
    assert.ok(/^(?:[\u2066\u2068]\u2069)*$/.test(marks), `unbalanced isolates in: ${message}`);
  }
});

Isolates("the full stop after client_credentials stays outside its isolate, in the JSON a partner receives", () => {
  const rendered = renderPartnerError({ code: "developer.use_api_key" }, "ar", {
    path: "/v1/token",
    timestamp: "2026-01-15T10:00:42.000Z",
    correlationId: "0b6f3a52-3c1e-4f7e-9a43-1d2b5f8c9e10",
  }).body as { message: string };
  assert.ok(rendered.message.endsWith("\u2066client_credentials\u2069."), rendered.message);
  assert.match(rendered.message, "\u2066ADSR\u2069");
});

Isolates.run();
