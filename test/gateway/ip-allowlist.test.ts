// The allowlist check of the gateway: addresses and CIDR ranges, IPv4 and IPv6, IPv4-mapped client addresses.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { addressAllowed, normalizeAddress } from "../../src/gateway/ip-allowlist.js";

const Allowlist = suite("gateway/ip-allowlist");

Allowlist("no allowlist allows everyone; an empty one nobody", () => {
  assert.ok(addressAllowed(undefined, "203.0.113.9"));
  assert.not.ok(addressAllowed([], "203.0.113.9"));
});

Allowlist("addresses and ranges, v4 and v6", () => {
  const list = ["203.0.113.9", "10.0.0.0/8", "2001:db8::/32", "fe80::1"];
  for (const address of ["203.0.113.9", "10.255.0.1", "2001:db8:ffff::1", "fe80::1", "::ffff:10.1.2.3", "2001:DB8::7"]) {
    assert.ok(addressAllowed(list, address), address);
  }
  for (const address of ["203.0.113.10", "11.0.0.1", "2001:db9::1", "fe80::2", "::1", "garbage", ""]) {
    assert.not.ok(addressAllowed(list, address), address);
  }
});

Allowlist("an IPv4-mapped IPv6 address is its IPv4 address", () => {
  assert.equal(normalizeAddress("::ffff:192.0.2.1"), { address: "192.0.2.1", type: "ipv4" });
  assert.equal(normalizeAddress("2001:db8::1"), { address: "2001:db8::1", type: "ipv6" });
  assert.is(normalizeAddress("nope"), undefined);
});

Allowlist.run();
