// The domain rules of src/credential without a database: formats and hashing, redirect URIs, allowlist entries,
// countries, app states, passwords and the verification cache's bound.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { nextAppState } from "../../src/credential/app-states.js";
import { isoCountryCount, regionForCountry } from "../../src/credential/countries.js";
import { canonicalAllowlistEntry, validateAllowlist } from "../../src/credential/ip-allowlist.js";
import { hashPassword, verifyPassword } from "../../src/credential/passwords.js";
import { redirectUriRuleBroken, redirectUriViolations } from "../../src/credential/redirect-uris.js";
import {
  clientIdEnvironment,
  hashesEqual,
  hashSecret,
  newApiKey,
  newClientId,
  newClientSecret,
  parseApiKey,
} from "../../src/credential/secrets.js";
import { cryptoIds } from "../../src/runtime/ids.js";

const Rules = suite("credentials");

Rules("formats: prefixes select the environment; secrets carry 256 random bits; keys parse back", () => {
  assert.is(clientIdEnvironment(newClientId(cryptoIds, "SANDBOX")), "SANDBOX");
  assert.is(clientIdEnvironment(newClientId(cryptoIds, "PRODUCTION")), "PRODUCTION");
  assert.is(clientIdEnvironment("lp_app_xx123"), undefined);
  const secret = newClientSecret(cryptoIds, "PRODUCTION");
  assert.match(secret, /^lp_sk_pk_[A-Za-z0-9_-]{43}$/);
  assert.is(Buffer.from(secret.slice("lp_sk_pk_".length), "base64url").length, 32);
  const key = newApiKey(cryptoIds, "SANDBOX");
  const parsed = parseApiKey(key.key);
  assert.equal(parsed && [parsed.environment, parsed.lookupId], ["SANDBOX", key.lookupId]);
  assert.ok(hashesEqual(hashSecret(parsed!.secret), key.hash));
  assert.not.ok(key.hash.equals(hashSecret(key.key)), "only the random part is hashed");
  for (const bad of ["", "lp_ak_sb_", key.key + "x", key.key.replace("lp_ak_sb_", "lp_ak_xx_"), key.key.slice(0, -1) + "!"]) {
    assert.is(parseApiKey(bad), undefined, bad);
  }
  assert.not.ok(hashesEqual(hashSecret("a"), hashSecret("b")));
});

Rules("redirect URIs: https anywhere, http only on localhost and 127.0.0.1, no fragment, 512 characters", () => {
  for (const ok of ["https://example.com/cb", "http://localhost/cb", "http://localhost:8080/cb", "http://127.0.0.1:9999/callback", "https://x.test/a?b=c"]) {
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
  assert.equal(redirectUriViolations(["https://a.test/", "http://b.test/", "https://a.test/"]), [
    { field: "redirect_uris[1]", rule: "https_required" },
    { field: "redirect_uris[2]", rule: "duplicate" },
  ]);
});

Rules("allowlist entries: IPv4 and IPv6 addresses and ranges, canonical; host bits, zones and junk refused", () => {
  assert.is(canonicalAllowlistEntry("2001:0DB8:0000::1"), "2001:db8::1");
  assert.is(canonicalAllowlistEntry("192.168.0.0/16"), "192.168.0.0/16");
  assert.is(canonicalAllowlistEntry("::/0"), "::/0");
  for (const bad of ["192.168.0.1/16", "1.2.3.4/", "1.2.3.4/x", "256.0.0.1", "01.2.3.4", "::1/129", "fe80::1%1", "a/b/c", "localhost"]) {
    assert.is(canonicalAllowlistEntry(bad), undefined, bad);
  }
  assert.equal(validateAllowlist(["10.0.0.0/8", "10.0.0.0/8"]), { ok: true, entries: ["10.0.0.0/8"] });
  assert.equal(validateAllowlist(["10.0.0.0/8", "nope"]), { ok: false, field: "allowed_ips[1]", value: "nope" });
  assert.is(validateAllowlist(Array(51).fill("1.1.1.1")).ok, false);
});

Rules("countries: 249 ISO codes; GB, US, IN, AE have regions, others the default; reserved codes are unknown", () => {
  assert.is(isoCountryCount, 249);
  assert.equal(regionForCountry("gb", "us"), { country: "GB", region: "uk" });
  assert.equal(regionForCountry("AE", "us"), { country: "AE", region: "ae" });
  assert.equal(regionForCountry("JP", "in"), { country: "JP", region: "in" });
  for (const code of ["UK", "EU", "XX", "ZZ", "G", "GBR", ""]) assert.is(regionForCountry(code, "us"), undefined, code);
});

Rules("app states: submit from DRAFT/REJECTED, approve and reject from IN_REVIEW, archive from all but ARCHIVED", () => {
  assert.is(nextAppState("DRAFT", "submit"), "IN_REVIEW");
  assert.is(nextAppState("REJECTED", "submit"), "IN_REVIEW");
  assert.is(nextAppState("APPROVED", "submit"), undefined);
  assert.is(nextAppState("IN_REVIEW", "approve"), "APPROVED");
  assert.is(nextAppState("DRAFT", "approve"), undefined);
  assert.is(nextAppState("IN_REVIEW", "reject"), "REJECTED");
  assert.is(nextAppState("APPROVED", "reject"), undefined);
  assert.is(nextAppState("APPROVED", "archive"), "ARCHIVED");
  assert.is(nextAppState("ARCHIVED", "archive"), undefined);
});

Rules("passwords: scrypt with a salt, verified in constant time; malformed stored values never verify", async () => {
  const stored = await hashPassword("correct horse");
  assert.match(stored, /^scrypt\$32768\$8\$1\$/);
  assert.not.ok(stored.includes("correct horse"));
  assert.is.not(await hashPassword("correct horse"), stored, "salted");
  assert.ok(await verifyPassword("correct horse", stored));
  assert.not.ok(await verifyPassword("correct horse!", stored));
  assert.not.ok(await verifyPassword("x", "plain"));
});

Rules.run();
