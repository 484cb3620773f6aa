// src/credential/redirect-uris.ts: the registration rules of redirect URIs (https, or http on loopback; no fragment;
// at most 512 characters) and the per-entry violations of a proposed set, duplicates included.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  maxRedirectUriLength,
  maxRedirectUris,
  redirectUriRuleBroken,
  redirectUriViolations,
} from "../../src/credential/redirect-uris.js";

const RedirectUris = suite("credential/redirect-uris");

RedirectUris("spec limits: five URIs per app, 512 characters each", () => {
  assert.is(maxRedirectUris, 5);
  assert.is(maxRedirectUriLength, 512);
});

RedirectUris("redirect URIs: https anywhere, http only on localhost and 127.0.0.1, no fragment, 512 characters", () => {
  for (const ok of [
    "https://example.com/cb",
    "http://localhost/cb",
    "http://localhost:8080/cb",
    "http://127.0.0.1:9999/callback",
    "https://x.test/a?b=c",
  ]) {
    assert.is(redirectUriRuleBroken(ok), undefined, ok);
  }
  const cases: Array<[string, string]> = [
    ["http://example.com/cb", "https_required"],
    ["http://localhost.evil.test/", "https_required"],
    ["http://[::1]:80/", "https_required"],
    ["http://user:pw@localhost/", "https_required"],
    ["javascript:alert(1)", "https_required"],
    ["https://example.com/#x", "fragment_not_allowed"],
    ["https://example.com/a b", "not_a_url"],
    ["relative/path", "not_a_url"],
    ["https://example.com/" + "a".repeat(493), "max_length_512"],
  ];
  for (const [uri, rule] of cases) assert.is(redirectUriRuleBroken(uri), rule, uri);
});

RedirectUris("exactly 512 characters is allowed, 513 is not; empty, tab and control characters are not URLs", () => {
  const at512 = "https://example.com/" + "a".repeat(492);
  assert.is(at512.length, 512);
  assert.is(redirectUriRuleBroken(at512), undefined);
  assert.is(redirectUriRuleBroken(at512 + "a"), "max_length_512");
  for (const bad of ["", "https://example.com/\tcb", "https://example.com/cb\n", "https://example.com/\u0000"]) {
    assert.is(redirectUriRuleBroken(bad), "not_a_url", JSON.stringify(bad));
  }
});

RedirectUris("violations name the entry index; a repeated URI is a duplicate; a valid set has none", () => {
  assert.equal(redirectUriViolations(["https://a.test/", "http://b.test/", "https://a.test/"]), [
    { field: "redirect_uris[1]", rule: "https_required" },
    { field: "redirect_uris[2]", rule: "duplicate" },
  ]);
  assert.equal(redirectUriViolations(["https://a.test/", "http://localhost:3000/cb"]), []);
});

RedirectUris.run();
