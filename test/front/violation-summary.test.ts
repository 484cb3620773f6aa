// src/front/violation-summary.ts: a validation failure names at most ten fields, each cut short, and counts the rest.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { fieldNameLimit, namedFieldsLimit, summarizeViolations } from "../../src/front/violation-summary.js";

const Summary = suite("front/violation-summary");

Summary("a few violations: every field named, every violation kept", () => {
  const violations = [
    { field: "name", rule: "is required" },
    { field: "code", rule: "is not a known field" },
  ];
  assert.equal(summarizeViolations(violations), { fields: "name, code", details: violations });
});

Summary(
  "16,716 unknown fields: the first ten named, the rest counted; the answer's size does not grow with them",
  () => {
    const many = Array.from({ length: 16_716 }, (_, n) => ({ field: `f${n}`, rule: "is not a known field" }));
    const summary = summarizeViolations(many);
    assert.is(namedFieldsLimit, 10);
    assert.is(summary.fields, "f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, … (+16706)");
    assert.equal(summary.details, many.slice(0, 10));
    const longNames = Array.from({ length: 16_716 }, (_, n) => ({
      field: `${n}`.padEnd(4000, "x"),
      rule: "is not a known field",
    }));
    assert.ok(JSON.stringify(summarizeViolations(longNames)).length < 4_000, "bounded whatever the names' length");
  },
);

Summary("a long name is cut to the limit, ending with …, never inside a surrogate pair", () => {
  const cut = summarizeViolations([{ field: "a".repeat(200), rule: "r" }]);
  assert.is(cut.fields, `${"a".repeat(fieldNameLimit - 1)}…`);
  const emoji = summarizeViolations([{ field: "a".repeat(fieldNameLimit - 2) + "😀".repeat(10), rule: "r" }]);
  assert.is(emoji.fields, `${"a".repeat(fieldNameLimit - 2)}…`);
});

Summary("at most two violations per named field", () => {
  const violations = ["a", "b", "c"].map((rule) => ({ field: "x", rule }));
  assert.equal(summarizeViolations(violations).details, violations.slice(0, 2));
});

Summary.run();
