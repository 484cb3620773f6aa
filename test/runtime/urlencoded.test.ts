// src/runtime/urlencoded.ts: the WHATWG urlencoded parser's answers, bytes that are not UTF-8 reported instead of
// replaced, the pair limit checked before any decoding, and the cost linear whatever the bytes (measured as work
// done, never as time: the decoded pairs of a hostile body are as many as its `&`s, each decoded once).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { countPairs, parseUrlEncoded, queryParams } from "../../src/runtime/urlencoded.js";

const UrlEncoded = suite("runtime/urlencoded");

UrlEncoded("the same pairs as URLSearchParams on well-formed and malformed percent-encodings", () => {
  for (const text of [
    "a=1&b=%C3%A9+x&&=&c",
    "%zz=%&%2",
    "x=%E2%80%AE",
    "é=ü%20",
    "q=%f0%9f%98%80",
    "=v&k",
    "a=b=c",
    "+%2B+=%25%41",
    "",
  ]) {
    const parsed = parseUrlEncoded(text, 100);
    assert.equal(parsed, { kind: "pairs", pairs: [...new URLSearchParams(text)], notUtf8: [] }, text);
  }
});

UrlEncoded("names whose name or value is not UTF-8 once decoded are reported once each, read with U+FFFD", () => {
  const parsed = parseUrlEncoded("a=%FFb&ok=1&c%ED%A0%80=1&a=%C0%AF&d=%F0%9F%98%80&e=%E2%82", 100);
  assert.is(parsed.kind, "pairs");
  if (parsed.kind !== "pairs") return;
  assert.equal(parsed.notUtf8, ["a", new URLSearchParams("c%ED%A0%80=1").keys().next().value, "e"]);
  assert.equal(
    parsed.pairs.map(([name]) => name),
    [...new URLSearchParams("a=%FFb&ok=1&c%ED%A0%80=1&a=%C0%AF&d=%F0%9F%98%80&e=%E2%82").keys()],
  );
});

UrlEncoded("more pairs than the limit: too_many, empty sequences not counted", () => {
  assert.equal(parseUrlEncoded("a&b&c", 2), { kind: "too_many", limit: 2 });
  assert.is(parseUrlEncoded("a&&&b&", 2).kind, "pairs");
  assert.is(countPairs("&&a&&b&&"), 2);
  assert.is(countPairs("%FF&".repeat(16_384)), 16_384);
});

UrlEncoded("a 64 KiB body of %FF& or %ED%A0%80& decodes to as many pairs as it has, every name reported once", () => {
  for (const unit of ["%FF&", "%ED%A0%80&"]) {
    const text = unit.repeat(Math.floor(65_536 / unit.length));
    const parsed = parseUrlEncoded(text, Number.POSITIVE_INFINITY);
    assert.is(parsed.kind, "pairs");
    if (parsed.kind !== "pairs") return;
    assert.is(parsed.pairs.length, Math.floor(65_536 / unit.length));
    assert.is(parsed.notUtf8.length, 1);
  }
});

UrlEncoded("queryParams: a page's query, bytes that are not UTF-8 read as U+FFFD like URLSearchParams", () => {
  for (const search of ["?lang=ar&x=%FF", "ui_locales=hi+en&state=%ED%A0%80", "?"]) {
    assert.equal([...queryParams(search)], [...new URLSearchParams(search)], search);
  }
});

UrlEncoded.run();
