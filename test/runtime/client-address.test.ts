// src/runtime/client-address.ts: the client's address: the socket peer, or behind TRUST_PROXY trusted proxies the
// address the outermost trusted proxy saw, read from the right of X-Forwarded-For; IPv4-mapped peers unwrapped.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { clientAddress } from "../../src/runtime/client-address.js";

const ClientAddress = suite("runtime/client-address");

ClientAddress("no trusted proxy: the socket peer, whatever X-Forwarded-For says", () => {
  assert.is(clientAddress("203.0.113.9", "6.6.6.6", 0), "203.0.113.9");
  assert.is(clientAddress("2001:db8::1", undefined, 0), "2001:db8::1");
  assert.is(clientAddress(undefined, undefined, 0), "");
});

ClientAddress("IPv4-mapped addresses of a dual-stack socket become plain IPv4; other IPv6 stays", () => {
  assert.is(clientAddress("::ffff:10.0.0.1", undefined, 0), "10.0.0.1");
  assert.is(clientAddress("::ffff:abcd", undefined, 0), "::ffff:abcd");
  assert.is(clientAddress("10.0.0.1", "::ffff:203.0.113.9", 1), "203.0.113.9");
});

ClientAddress("one trusted proxy: the rightmost entry; entries left of it may be forged and are ignored", () => {
  assert.is(clientAddress("10.0.0.1", "203.0.113.9", 1), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", "6.6.6.6, 203.0.113.9", 1), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", "6.6.6.6,203.0.113.9", 1), "203.0.113.9");
});

ClientAddress("two trusted proxies: the entry the outer proxy saw, second from the right", () => {
  assert.is(clientAddress("10.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.2", 2), "203.0.113.9");
});

ClientAddress("repeated headers are one list, in order", () => {
  assert.is(clientAddress("10.0.0.1", ["6.6.6.6", "203.0.113.9"], 1), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", ["6.6.6.6, 203.0.113.9", "10.0.0.2"], 2), "203.0.113.9");
});

ClientAddress("trusted proxies but no header: the peer; more trusted proxies than hops: the leftmost entry", () => {
  assert.is(clientAddress("10.0.0.1", undefined, 1), "10.0.0.1");
  assert.is(clientAddress("10.0.0.1", "203.0.113.9", 5), "203.0.113.9");
});

ClientAddress("blank entries are skipped; an entry that is not an IP address falls back to the peer", () => {
  assert.is(clientAddress("10.0.0.1", "203.0.113.9, , ", 1), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", "unknown", 1), "10.0.0.1");
  assert.is(clientAddress("10.0.0.1", "203.0.113.9:443", 1), "10.0.0.1");
  assert.is(clientAddress("10.0.0.1", "", 1), "10.0.0.1");
});

ClientAddress.run();
