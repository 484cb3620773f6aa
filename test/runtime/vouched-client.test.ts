// src/runtime/vouched-client.ts: the front believes an address named in X-Vouched-Client only with this process's
// secret, compared in constant time; anything else is as if the header were absent.
import * as assert from "uvu/assert";
import { createVouchedClients } from "../../src/runtime/vouched-client.js";
import { suite } from "../support/suite.js";

const Vouched = suite("runtime/vouched-client");

Vouched("a header made by vouch() names its address, normalised; IPv4-mapped IPv6 reads as IPv4", () => {
  const clients = createVouchedClients();
  assert.is(clients.addressOf(clients.vouch("203.0.113.7")), "203.0.113.7");
  assert.is(clients.addressOf(clients.vouch("2001:DB8::1")), "2001:db8::1");
  assert.is(clients.addressOf(clients.vouch("::ffff:198.51.100.2")), "198.51.100.2");
});

Vouched("another process's secret, a wrong or missing proof, no address or junk: not believed", () => {
  const clients = createVouchedClients("s".repeat(43));
  const other = createVouchedClients("t".repeat(43));
  assert.is(clients.addressOf(other.vouch("203.0.113.7")), undefined);
  assert.is(clients.addressOf(`203.0.113.7 ${"s".repeat(42)}`), undefined);
  assert.is(clients.addressOf(`203.0.113.7 ${"s".repeat(44)}`), undefined);
  assert.is(clients.addressOf("203.0.113.7"), undefined);
  assert.is(clients.addressOf(` ${"s".repeat(43)}`), undefined);
  assert.is(clients.addressOf(`not-an-address ${"s".repeat(43)}`), undefined);
  assert.is(clients.addressOf(undefined), undefined);
  assert.is(clients.addressOf(["203.0.113.7", "s".repeat(43)]), undefined);
  // Two processes never share a secret unless given one.
  assert.is.not(createVouchedClients().vouch("x"), createVouchedClients().vouch("x"));
});

Vouched.run();
