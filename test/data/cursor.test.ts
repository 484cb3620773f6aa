// The paging cursor: opaque, round trips, and refuses what we did not issue.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { decodeCursor, encodeCursor, pageOf } from "../../src/data/cursor.js";

const Cursor = suite("data/cursor");

Cursor("round trips the last id; no cursor means the first page", () => {
  assert.is(decodeCursor(encodeCursor(42)), 42);
  assert.is(decodeCursor(encodeCursor(900_000_000_123)), 900_000_000_123);
  assert.is(decodeCursor(undefined), 0);
  assert.is(decodeCursor(""), 0);
  assert.match(encodeCursor(42), /^[A-Za-z0-9_-]+$/);
});

Cursor("anything else is not a cursor", () => {
  for (const text of [
    "42",
    "djE6",
    Buffer.from("v1:0").toString("base64url"),
    Buffer.from("v1:1e3").toString("base64url"),
    "a+b/",
    Buffer.from("v1:1234567890123456").toString("base64url"),
  ]) {
    assert.is(decodeCursor(text), undefined, text);
  }
});

Cursor("a page of limit+1 rows gives limit rows and the cursor of the last one", () => {
  const rows = [{ id: 3 }, { id: 5 }, { id: 9 }];
  assert.equal(pageOf(rows, 2), { rows: [{ id: 3 }, { id: 5 }], nextCursor: encodeCursor(5) });
  assert.equal(pageOf(rows, 3), { rows, nextCursor: undefined });
});

Cursor.run();
