// src/credential/ip-allowlist.ts: allowlist entries validated and put in one canonical spelling on write (IPv4 and
// IPv6 addresses and CIDR ranges), and the whole list checked with the index of the first bad entry; the check of
// an address against a list (addresses and CIDR ranges, IPv4 and IPv6, IPv4-mapped client addresses).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import {
  addressAllowed,
  canonicalAllowlistEntry,
  maxAllowlistEntries,
  validateAllowlist,
} from "../../src/credential/ip-allowlist.js";

const Allowlist = suite("credential/ip-allowlist");

Allowlist("allowlist entries: IPv4 and IPv6 addresses and ranges, canonical; host bits, zones and junk refused", () => {
  assert.is(canonicalAllowlistEntry("2001:0DB8:0000::1"), "2001:db8::1");
  assert.is(canonicalAllowlistEntry("192.168.0.0/16"), "192.168.0.0/16");
  assert.is(canonicalAllowlistEntry("::/0"), "::/0");
  for (const bad of [
    "192.168.0.1/16",
    "1.2.3.4/",
    "1.2.3.4/x",
    "256.0.0.1",
    "01.2.3.4",
    "::1/129",
    "fe80::1%1",
    "a/b/c",
    "localhost",
  ]) {
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
  assert.equal(validateAllowlist(Array(51).fill("1.1.1.1")), {
    ok: false,
    field: "allowed_ips",
    value: "51 entries (at most 50)",
  });
  assert.equal(validateAllowlist(Array(50).fill("1.1.1.1")), { ok: true, entries: ["1.1.1.1"] });
});

Allowlist("no allowlist allows everyone; an empty one nobody", () => {
  assert.ok(addressAllowed(undefined, "203.0.113.9"));
  assert.not.ok(addressAllowed([], "203.0.113.9"));
});

Allowlist("addresses and ranges, v4 and v6", () => {
  const list = ["203.0.113.9", "10.0.0.0/8", "2001:db8::/32", "fe80::1"];
  for (const address of [
    "203.0.113.9",
    "10.255.0.1",
    "2001:db8:ffff::1",
    "fe80::1",
    "::ffff:10.1.2.3",
    "2001:DB8::7",
  ]) {
    assert.ok(addressAllowed(list, address), address);
  }
  for (const address of ["203.0.113.10", "11.0.0.1", "2001:db9::1", "fe80::2", "::1", "garbage", ""]) {
    assert.not.ok(addressAllowed(list, address), address);
  }
});

Allowlist("an IPv4-mapped IPv6 client address matches the IPv4 entries, in either spelling", () => {
  assert.ok(addressAllowed(["192.0.2.1"], "::ffff:192.0.2.1"));
  assert.ok(addressAllowed(["192.0.2.0/24"], "::ffff:c000:201"));
  assert.not.ok(addressAllowed(["192.0.2.1"], "::ffff:192.0.2.2"));
});

Allowlist.run();
