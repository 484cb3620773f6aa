// src/credential/ip-allowlist.ts: allowlist entries validated and put in one canonical spelling on write (IPv4 and
// IPv6 addresses and CIDR ranges), and the whole list checked with the index of the first bad entry.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { canonicalAllowlistEntry, maxAllowlistEntries, validateAllowlist } from "../../src/credential/ip-allowlist.js";

const Allowlist = suite("credential/ip-allowlist");

Allowlist("allowlist entries: IPv4 and IPv6 addresses and ranges, canonical; host bits, zones and junk refused", () => {
  assert.is(canonicalAllowlistEntry("2001:0DB8:0000::1"), "2001:db8::1");
  assert.is(canonicalAllowlistEntry("192.168.0.0/16"), "192.168.0.0/16");
  assert.is(canonicalAllowlistEntry("::/0"), "::/0");
  for (const bad of ["192.168.0.1/16", "1.2.3.4/", "1.2.3.4/x", "256.0.0.1", "01.2.3.4", "::1/129", "fe80::1%1", "a/b/c", "localhost"]) {
    assert.is(canonicalAllowlistEntry(bad), undefined, bad);
  }
});

Allowlist("prefix bounds: /32 and /128 are single hosts, /33 and /129 do not exist; IPv6 host bits are refused", () => {
  assert.is(canonicalAllowlistEntry("203.0.113.9/32"), "203.0.113.9/32");
  assert.is(canonicalAllowlistEntry("203.0.113.9/33"), undefined);
  assert.is(canonicalAllowlistEntry("2001:DB8::1/128"), "2001:db8::1/128");
  assert.is(canonicalAllowlistEntry("2001:db8::/32"), "2001:db8::/32");
  assert.is(canonicalAllowlistEntry("2001:db8::1/32"), undefined);
  assert.is(canonicalAllowlistEntry("  10.0.0.0/8 "), "10.0.0.0/8", "surrounding blanks are trimmed");
});

Allowlist("a list: canonical and deduplicated, or the first bad entry; at most 50 entries", () => {
  assert.is(maxAllowlistEntries, 50);
  assert.equal(validateAllowlist(["10.0.0.0/8", "10.0.0.0/8"]), { ok: true, entries: ["10.0.0.0/8"] });
  assert.equal(validateAllowlist(["2001:DB8::1", "2001:db8::1"]), { ok: true, entries: ["2001:db8::1"] });
  assert.equal(validateAllowlist(["10.0.0.0/8", "nope"]), { ok: false, field: "allowed_ips[1]", value: "nope" });
  assert.is(validateAllowlist(Array(51).fill("1.1.1.1")).ok, false);
  assert.equal(validateAllowlist(Array(51).fill("1.1.1.1")), { ok: false, field: "allowed_ips", value: "51 entries (at most 50)" });
  assert.equal(validateAllowlist(Array(50).fill("1.1.1.1")), { ok: true, entries: ["1.1.1.1"] });
});

Allowlist.run();
