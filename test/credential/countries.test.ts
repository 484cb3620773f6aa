// src/credential/countries.ts: a sandbox merchant's ISO 3166-1 alpha-2 country and the region it selects.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { isoCountryCount, regionForCountry } from "../../src/credential/countries.js";

const Countries = suite("credential/countries");

Countries(
  "countries: 249 ISO codes; GB, US, IN, AE have regions, others the default; reserved codes are unknown",
  () => {
    assert.is(isoCountryCount, 249);
    assert.equal(regionForCountry("gb", "us"), { country: "GB", region: "uk" });
    assert.equal(regionForCountry("AE", "us"), { country: "AE", region: "ae" });
    assert.equal(regionForCountry("JP", "in"), { country: "JP", region: "in" });
    for (const code of ["UK", "EU", "XX", "ZZ", "G", "GBR", ""])
      assert.is(regionForCountry(code, "us"), undefined, code);
  },
);

Countries("the four regional countries ignore the default; the code is trimmed and upper-cased", () => {
  assert.equal(regionForCountry("US", "uk"), { country: "US", region: "us" });
  assert.equal(regionForCountry("IN", "us"), { country: "IN", region: "in" });
  assert.equal(regionForCountry(" in ", "us"), { country: "IN", region: "in" });
});

Countries.run();
