// src/config/ip-addresses.ts: the one parser of addresses and CIDR ranges (allowlists, TRUST_PROXY), the one
// matcher, the one reading of what a socket reports (IPv4-mapped IPv6 is IPv4), and the key every per-address
// counter counts under (IPv4 by address, IPv6 by its /64).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { addressKey, addressRanges, canonicalRange, normalizeAddress } from "../../src/config/ip-addresses.js";

const Addresses = suite("config/ip-addresses");

Addresses("canonical ranges: IPv4 and IPv6 addresses and CIDR ranges; host bits, zones and junk refused", () => {
  assert.is(canonicalRange("2001:0DB8:0000::1"), "2001:db8::1");
  assert.is(canonicalRange("192.168.0.0/16"), "192.168.0.0/16");
  assert.is(canonicalRange(" 10.0.0.0/8 "), "10.0.0.0/8");
  assert.is(canonicalRange("2001:DB8::/32"), "2001:db8::/32");
  for (const bad of [
    "192.168.0.1/16",
    "1.2.3.4/",
    "1.2.3.4/33",
    "::1/129",
    "fe80::1%1",
    "a/b/c",
    "localhost",
    "1",
    "",
  ]) {
    assert.is(canonicalRange(bad), undefined, bad);
  }
});

Addresses(
  "normalizeAddress: an IPv4-mapped IPv6 address, in either spelling, is its IPv4 address; zones are dropped",
  () => {
    assert.equal(normalizeAddress("::ffff:192.0.2.1"), { address: "192.0.2.1", type: "ipv4" });
    assert.equal(normalizeAddress("::FFFF:192.0.2.1"), { address: "192.0.2.1", type: "ipv4" });
    assert.equal(normalizeAddress("::ffff:c000:201"), { address: "192.0.2.1", type: "ipv4" });
    assert.equal(normalizeAddress("0:0:0:0:0:ffff:c000:0201"), { address: "192.0.2.1", type: "ipv4" });
    assert.equal(normalizeAddress("2001:DB8::1"), { address: "2001:db8::1", type: "ipv6" });
    assert.equal(normalizeAddress("fe80::1%eth0"), { address: "fe80::1", type: "ipv6" });
    assert.equal(normalizeAddress("::ffff:abcd"), { address: "::ffff:abcd", type: "ipv6" });
    for (const bad of ["nope", "", "203.0.113.9:443", "[2001:db8::1]", "01.2.3.4"])
      assert.is(normalizeAddress(bad), undefined, bad);
  },
);

Addresses(
  "addressRanges: addresses and ranges of both families; mapped addresses match IPv4 entries; junk matches nothing",
  () => {
    const ranges = addressRanges(["203.0.113.9", "10.0.0.0/8", "2001:db8::/32", "fe80::1", "not a range"]);
    for (const address of [
      "203.0.113.9",
      "10.255.0.1",
      "::ffff:10.1.2.3",
      "2001:db8:ffff::1",
      "2001:DB8::7",
      "fe80::1",
    ]) {
      assert.ok(ranges.has(address), address);
    }
    for (const address of ["203.0.113.10", "11.0.0.1", "2001:db9::1", "fe80::2", "::1", "garbage", ""]) {
      assert.not.ok(ranges.has(address), address);
    }
    assert.not.ok(addressRanges([]).has("127.0.0.1"), "an empty list trusts nothing");
  },
);

Addresses("addressKey: IPv4 by its address; IPv6 by its /64, so one subnet is one bucket", () => {
  assert.is(addressKey("203.0.113.9"), "203.0.113.9");
  assert.is(addressKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
  assert.is(addressKey("2001:DB8:1:2::1"), "2001:db8:1:2::/64");
  assert.is(addressKey("2001:db8:1:3::1"), "2001:db8:1:3::/64");
  assert.is(addressKey("::1"), "::/64");
  assert.is(addressKey("fe80::1%eth0"), "fe80::/64");
});

Addresses(
  "addressKey: an IPv4-mapped IPv6 address is the IPv4 address (not the ::ffff:0:0/64 every IPv4 client shares)",
  () => {
    assert.is(addressKey("::ffff:203.0.113.9"), "203.0.113.9");
    assert.is(addressKey("::ffff:cb00:7109"), "203.0.113.9");
    assert.is.not(addressKey("::ffff:203.0.113.9"), addressKey("::ffff:203.0.113.10"));
  },
);

Addresses("addressKey: what is not an address (an internal caller, an empty peer) is kept as it is", () => {
  assert.is(addressKey("internal"), "internal");
  assert.is(addressKey(""), "");
});

Addresses.run();
