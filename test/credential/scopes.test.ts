// src/credential/scopes.ts: the scope bundle of each product (docs/decisions.md, "OAuth"), in the fixed order of
// the `scopes` claim, and the union of all bundles for the authorization server metadata.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { allScopes, scopesForProduct } from "../../src/credential/scopes.js";

const Scopes = suite("credential/scopes");

Scopes("FULL reads everything and writes items and categories, not orders", () => {
  assert.equal(scopesForProduct("FULL"), [
    "stores.read",
    "items.read",
    "items.write",
    "categories.read",
    "categories.write",
    "orders.read",
    "reports.read",
  ]);
});

Scopes("ONLINE_ORDER reads the menu and reads and writes orders; ADSR reads stores and reports", () => {
  assert.equal(scopesForProduct("ONLINE_ORDER"), [
    "stores.read",
    "items.read",
    "categories.read",
    "orders.read",
    "orders.write",
  ]);
  assert.equal(scopesForProduct("ADSR"), ["stores.read", "reports.read"]);
});

Scopes("each call answers a fresh copy: changing it does not change the bundle", () => {
  const scopes = scopesForProduct("ADSR");
  scopes.push("items.write");
  scopes[0] = "changed";
  assert.equal(scopesForProduct("ADSR"), ["stores.read", "reports.read"]);
});

Scopes("all scopes: every bundle's names once, in first-seen order", () => {
  assert.equal(allScopes(), [
    "stores.read",
    "items.read",
    "items.write",
    "categories.read",
    "categories.write",
    "orders.read",
    "reports.read",
    "orders.write",
  ]);
});

Scopes.run();
