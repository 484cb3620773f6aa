// src/data/store-scope.ts: the internal header that carries the stores a partner call may read from the gateway to
// the region's DataService; absent means every store, and a value that cannot be read means no store.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { formatStoreScope, parseStoreScope, storeScopeHeader } from "../../src/data/store-scope.js";

const StoreScope = suite("data/store-scope");

StoreScope("the header name is lowercase, as HTTP/2 and gRPC metadata require", () => {
  assert.is(storeScopeHeader, "x-partner-store-scope");
  assert.is(storeScopeHeader, storeScopeHeader.toLowerCase());
});

StoreScope("format: ids joined by commas; parse reads them back", () => {
  assert.is(formatStoreScope([3, 17, 250]), "3,17,250");
  assert.is(formatStoreScope([5]), "5");
  assert.equal(parseStoreScope("3,17,250"), [3, 17, 250]);
  assert.equal(parseStoreScope(formatStoreScope([9, 1])), [9, 1]);
});

StoreScope("an absent header is every store (undefined); an empty list stays no store, never every store", () => {
  assert.is(parseStoreScope(null), undefined);
  assert.is(formatStoreScope([]), "");
  assert.equal(parseStoreScope(formatStoreScope([])), []);
});

StoreScope("a malformed value is an empty scope, never a wider one", () => {
  for (const bad of [
    "0",
    "-1",
    "01",
    "1,",
    ",1",
    "1,,2",
    "1, 2",
    " 1",
    "1;2",
    "a",
    "1.5",
    "1e3",
    "12345678901234567",
  ]) {
    assert.equal(parseStoreScope(bad), [], JSON.stringify(bad));
  }
  assert.equal(parseStoreScope("1234567890123456"), [1234567890123456], "16 digits are read");
});

StoreScope.run();
