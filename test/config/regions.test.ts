// src/config/regions.ts: the regions a merchant can live in, in migration order, and isRegion, which narrows an
// untrusted value (a token claim, a config value) to one of them: exact lower-case names only.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { isRegion, regions } from "../../src/config/regions.js";

const Regions = suite("config/regions");

Regions("the four regions, in the order migrations run in", () => {
  assert.equal([...regions], ["uk", "us", "in", "ae"]);
});

Regions("isRegion: true for each region", () => {
  for (const region of ["uk", "us", "in", "ae"]) assert.ok(isRegion(region), region);
});

Regions("isRegion: false for other strings: case, spaces, country codes that are not regions, empty, a list", () => {
  for (const value of ["UK", "Uk", " uk", "uk ", "gb", "eu", "", "uk,us", "u"])
    assert.is(isRegion(value), false, JSON.stringify(value));
});

Regions("isRegion: false for values that are not strings, even ones that print as a region", () => {
  const boxed = new String("uk");
  const printsAsUk = { toString: () => "uk" };
  for (const value of [undefined, null, 0, 1, true, ["uk"], { region: "uk" }, boxed, printsAsUk]) {
    assert.is(isRegion(value), false, String(value));
  }
});

Regions("isRegion: inherited array members are not regions", () => {
  for (const value of ["length", "map", "constructor", "__proto__"]) assert.is(isRegion(value), false, value);
});

Regions.run();
