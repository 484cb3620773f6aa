// The scope bundle of each product: the spec leaves the bundles "not shown"; these are ours
// (docs/decisions.md, "OAuth"). Every token of an app carries its product's whole bundle; the `scope`
// parameter of the authorize request is accepted and ignored.
import type { Product } from "./products.js";

const bundles: Readonly<Record<Product, readonly string[]>> = {
  FULL: [
    "stores.read",
    "items.read",
    "items.write",
    "categories.read",
    "categories.write",
    "orders.read",
    "reports.read",
  ],
  ONLINE_ORDER: ["stores.read", "items.read", "categories.read", "orders.read", "orders.write"],
  ADSR: ["stores.read", "reports.read"],
};

/** The scopes a token of `product` carries, in a fixed order (the `scopes` claim; `scope` joins them by spaces). */
export function scopesForProduct(product: Product): string[] {
  return [...bundles[product]];
}

/** Every scope name of any bundle, for the authorization server metadata. */
export function allScopes(): string[] {
  return [...new Set(Object.values(bundles).flat())];
}
