// The error model in one import: the catalogue, locale negotiation, raising and reading, rendering.
export * from "./catalogue.js";
export * from "./locale.js";
export * from "./message.js";
export * from "./render.js";
export * from "./service-error.js";
