// src/storage/schemas.ts: the PostgreSQL schema names: "control" for the control plane and region_<r> for each
// region, each a plain identifier PostgreSQL takes unquoted (PostgreSQL docs, "Identifiers and Key Words":
// lower-case letters, digits and underscores, not starting with a digit, at most 63 bytes).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { regions } from "../../src/config/regions.js";
import { controlSchema, regionSchema } from "../../src/storage/schemas.js";

const Schemas = suite("storage/schemas");

const unquotedIdentifier = /^[a-z_][a-z0-9_]{0,62}$/;

Schemas("the control plane's schema is control", () => {
  assert.is(controlSchema, "control");
});

Schemas("a region's schema is region_<region>", () => {
  assert.is(regionSchema("uk"), "region_uk");
  assert.is(regionSchema("us"), "region_us");
  assert.is(regionSchema("in"), "region_in");
  assert.is(regionSchema("ae"), "region_ae");
});

Schemas("every schema name is distinct and a plain unquoted identifier", () => {
  const names = [controlSchema, ...regions.map(regionSchema)];
  assert.is(new Set(names).size, regions.length + 1);
  for (const name of names) assert.match(name, unquotedIdentifier, name);
});

Schemas.run();
