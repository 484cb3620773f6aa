// The shape every language's catalogue has: exactly the keys of the English one, each a string. A catalogue that
// lacks a key, or has one English does not, fails to type-check.
import type { en } from "./en.js";

export type MessageKey = keyof typeof en;
export type Catalogue = { readonly [K in MessageKey]: string };
