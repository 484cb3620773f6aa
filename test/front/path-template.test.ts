// src/front/path-template.ts: google.api.http path templates, the subset our protos use (literal segments and
// single-segment variables), parsed once and matched segment by segment; path splitting with percent-decoding.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { matchPathTemplate, parsePathTemplate, sharedPrefixLength, splitPath } from "../../src/front/path-template.js";

const PathTemplate = suite("front/path-template");

PathTemplate("parses literals and variables, {field} and {field=*} alike", () => {
  assert.equal(parsePathTemplate("/v1/items/{id}"), {
    source: "/v1/items/{id}",
    segments: [{ literal: "v1" }, { literal: "items" }, { variable: "id" }],
  });
  assert.equal(parsePathTemplate("/v1/console/organizations/{organization_id=*}/members/{account_id}").segments, [
    { literal: "v1" },
    { literal: "console" },
    { literal: "organizations" },
    { variable: "organization_id" },
    { literal: "members" },
    { variable: "account_id" },
  ]);
  assert.equal(parsePathTemplate("/.well-known/jwks.json").segments, [
    { literal: ".well-known" },
    { literal: "jwks.json" },
  ]);
});

PathTemplate("a template without a leading slash stops the start", () => {
  assert.throws(
    () => parsePathTemplate("v1/items"),
    (error: Error) => error.message === 'path template must start with "/": v1/items',
  );
});

PathTemplate(
  "unsupported segments stop the start: **, verbs, multi-segment and upper-case or dotted variables, empty",
  () => {
    for (const [template, segment] of [
      ["/v1/{name=**}", "{name=**}"],
      ["/v1/{name=items/*}", "{name=items"],
      ["/v1/items:batchGet", "items:batchGet"],
      ["/v1/{Id}", "{Id}"],
      ["/v1/{item.id}", "{item.id}"],
      ["/v1//items", ""],
      ["/", ""],
    ] as const) {
      assert.throws(
        () => parsePathTemplate(template),
        (error: Error) => error.message === `unsupported path template segment "${segment}" in ${template}`,
        template,
      );
    }
  },
);

PathTemplate("matching binds variables; literals must be equal; segment counts must agree", () => {
  const template = parsePathTemplate("/v1/console/apps/{app_id}/credentials/{client_id}/rotate-secret");
  assert.equal(
    matchPathTemplate(template, ["v1", "console", "apps", "app_1", "credentials", "lp_app_sbX", "rotate-secret"]),
    {
      app_id: "app_1",
      client_id: "lp_app_sbX",
    },
  );
  assert.is(
    matchPathTemplate(template, ["v1", "console", "apps", "app_1", "credentials", "lp_app_sbX", "rotate"]),
    undefined,
  );
  assert.is(matchPathTemplate(template, ["v1", "console", "apps", "app_1", "credentials", "lp_app_sbX"]), undefined);
  assert.equal(matchPathTemplate(parsePathTemplate("/v1/stores"), ["v1", "stores"]), {});
  assert.is(
    matchPathTemplate(parsePathTemplate("/v1/stores"), ["v1", "Stores"]),
    undefined,
    "literals are case-sensitive",
  );
});

PathTemplate("a variable never binds an empty segment", () => {
  const template = parsePathTemplate("/v1/items/{id}");
  assert.is(matchPathTemplate(template, ["v1", "items", ""]), undefined);
  assert.equal(matchPathTemplate(template, ["v1", "items", "a b"]), { id: "a b" });
});

PathTemplate("shared prefix: leading literal segments only, stopping at the first variable or difference", () => {
  const template = parsePathTemplate("/v1/oauth/token");
  assert.is(sharedPrefixLength(template, ["v1", "oauth", "tokn"]), 2);
  assert.is(sharedPrefixLength(template, ["v1", "oauth", "token", "extra"]), 3);
  assert.is(sharedPrefixLength(template, ["v2", "oauth", "token"]), 0);
  assert.is(sharedPrefixLength(template, ["v1"]), 1);
  assert.is(sharedPrefixLength(parsePathTemplate("/v1/items/{id}/x"), ["v1", "items", "x", "x"]), 2);
});

PathTemplate(
  "splitting: segments after the leading slash, percent-decoded; an encoded slash stays inside its segment",
  () => {
    assert.equal(splitPath("/v1/items/42"), ["v1", "items", "42"]);
    assert.equal(splitPath("/v1/online-orders/a%20b"), ["v1", "online-orders", "a b"]);
    assert.equal(splitPath("/v1/items/a%2Fb"), ["v1", "items", "a/b"]);
    assert.equal(splitPath("/v1/stores/"), ["v1", "stores", ""]);
    assert.equal(splitPath("/"), [""]);
    assert.equal(splitPath("/v1/caf%C3%A9"), ["v1", "café"]);
  },
);

PathTemplate("splitting: a malformed escape makes the whole path undefined", () => {
  assert.is(splitPath("/v1/items/%zz"), undefined);
  assert.is(splitPath("/v1/items/%E0%A4%A"), undefined);
  assert.is(splitPath("/v1/items/%"), undefined);
});

PathTemplate.run();
