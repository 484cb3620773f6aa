// src/runtime/json-duplicate-keys.ts: the first member name repeated within one object, by its path.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { firstDuplicateKey } from "../../src/runtime/json-duplicate-keys.js";

const Duplicates = suite("runtime/json-duplicate-keys");

Duplicates("a repeated name in the top object, a nested object or an array's object, by path", () => {
  assert.is(firstDuplicateKey('{"a":1,"a":2}'), "a");
  assert.is(firstDuplicateKey('{"a":{"b":1,"c":[1,2],"b":2}}'), "a.b");
  assert.is(firstDuplicateKey('{"lines":[{"q":1},{"q":2,"r":3,"q":4}]}'), "lines.1.q");
  assert.is(firstDuplicateKey('[{"x":1},[{"y":1,"y":1}]]'), "1.0.y");
});

Duplicates("escapes are read: \\u0061 is a; escaped quotes and braces inside strings are text", () => {
  assert.is(firstDuplicateKey('{"a":1,"\\u0061":2}'), "a");
  assert.is(firstDuplicateKey('{"a\\"{,":"}\\\\","b":"[,{","c":1}'), undefined);
  assert.is(firstDuplicateKey('{"k":"a","v":{"k":"a"},"w":["k","k"]}'), undefined);
});

Duplicates("no object, or no repeat: undefined", () => {
  for (const text of ["1", '"s"', "[]", "{}", "null", '{"a":[],"b":{},"c":""}'])
    assert.is(firstDuplicateKey(text), undefined, text);
});

Duplicates.run();
