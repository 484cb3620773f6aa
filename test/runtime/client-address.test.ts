// src/runtime/client-address.ts: the client's address. X-Forwarded-For is read only when the socket peer is a
// trusted proxy (TRUST_PROXY: addresses and CIDR ranges), walked from the right past every trusted proxy to the first
// address that is not one (as proxy-addr and nginx's real_ip_recursive do); IPv4-mapped addresses are IPv4.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { clientAddress } from "../../src/runtime/client-address.js";
import { addressRanges } from "../../src/config/ip-addresses.js";

const ClientAddress = suite("runtime/client-address");
const nobody = addressRanges([]);
const proxies = addressRanges(["10.0.0.0/8", "2001:db8:ffff::/48"]);

ClientAddress("no trusted proxy: the socket peer, whatever X-Forwarded-For says", () => {
  assert.is(clientAddress("203.0.113.9", "6.6.6.6", nobody), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", "6.6.6.6", nobody), "10.0.0.1");
  assert.is(clientAddress("2001:db8::1", undefined, nobody), "2001:db8::1");
  assert.is(clientAddress(undefined, undefined, nobody), "");
});

ClientAddress("a direct request (the peer is not a trusted proxy): the peer, whatever X-Forwarded-For says", () => {
  assert.is(clientAddress("203.0.113.9", "6.6.6.6", proxies), "203.0.113.9");
  assert.is(clientAddress("203.0.113.9", "6.6.6.6, 10.0.0.2", proxies), "203.0.113.9");
  assert.is(clientAddress("2001:db8::9", "6.6.6.6", proxies), "2001:db8::9");
});

ClientAddress(
  "IPv4-mapped addresses of a dual-stack socket become plain IPv4, for the peer, the trust check and the hops",
  () => {
    assert.is(clientAddress("::ffff:203.0.113.9", undefined, nobody), "203.0.113.9");
    assert.is(clientAddress("::ffff:10.0.0.1", "::ffff:203.0.113.9", proxies), "203.0.113.9");
    assert.is(clientAddress("::ffff:abcd", undefined, nobody), "::ffff:abcd");
  },
);

ClientAddress("behind one trusted proxy: the rightmost entry; entries left of it may be forged and are ignored", () => {
  assert.is(clientAddress("10.0.0.1", "203.0.113.9", proxies), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", "6.6.6.6, 203.0.113.9", proxies), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", "6.6.6.6,203.0.113.9", proxies), "203.0.113.9");
  assert.is(clientAddress("2001:db8:ffff::1", "6.6.6.6, 2001:db8::9", proxies), "2001:db8::9");
});

ClientAddress(
  "behind a chain of trusted proxies: trusted entries are skipped, the first untrusted one from the right wins",
  () => {
    assert.is(clientAddress("10.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.2", proxies), "203.0.113.9");
    assert.is(clientAddress("10.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.3, 2001:db8:ffff::7", proxies), "203.0.113.9");
  },
);

ClientAddress(
  "fewer hops than proxies: never a forgeable entry left of the first untrusted one (the old hop count took the leftmost)",
  () => {
    // One real proxy appended the client's address; the client sent nothing. A hop count of 5 answered 203.0.113.9
    // here by luck, and 6.6.6.6 below by mistake: the entry the client wrote.
    assert.is(clientAddress("10.0.0.1", "203.0.113.9", proxies), "203.0.113.9");
    assert.is(clientAddress("10.0.0.1", "6.6.6.6, 203.0.113.9", proxies), "203.0.113.9");
    // Every entry a trusted proxy: the leftmost, which is itself one of our proxies' addresses.
    assert.is(clientAddress("10.0.0.1", "10.0.0.3, 10.0.0.2", proxies), "10.0.0.3");
  },
);

ClientAddress("repeated headers are one list, in order", () => {
  assert.is(clientAddress("10.0.0.1", ["6.6.6.6", "203.0.113.9"], proxies), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", ["6.6.6.6, 203.0.113.9", "10.0.0.2"], proxies), "203.0.113.9");
});

ClientAddress("a trusted peer without the header: the peer", () => {
  assert.is(clientAddress("10.0.0.1", undefined, proxies), "10.0.0.1");
  assert.is(clientAddress("10.0.0.1", "", proxies), "10.0.0.1");
});

ClientAddress(
  "blank entries are skipped; an unreadable entry stops the walk at the last trusted address before it",
  () => {
    assert.is(clientAddress("10.0.0.1", "203.0.113.9, , ", proxies), "203.0.113.9");
    assert.is(clientAddress("10.0.0.1", "unknown", proxies), "10.0.0.1");
    assert.is(clientAddress("10.0.0.1", "203.0.113.9:443", proxies), "10.0.0.1");
    assert.is(clientAddress("10.0.0.1", "6.6.6.6, garbage, 10.0.0.2", proxies), "10.0.0.2");
  },
);

ClientAddress.run();
