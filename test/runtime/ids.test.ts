// src/runtime/ids.ts: the production source of identifiers: RFC 4122 version 4 UUIDs and base64url random tokens.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { cryptoIds } from "../../src/runtime/ids.js";

const Ids = suite("runtime/ids");

Ids("uuid: RFC 4122 version 4 (version nibble 4, variant 10xx), lowercase, a new one each call", () => {
  const uuid = cryptoIds.uuid();
  assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is.not(cryptoIds.uuid(), uuid);
});

Ids("randomToken: the asked number of bytes, base64url without padding", () => {
  for (const [bytes, length] of [
    [32, 43],
    [18, 24],
    [9, 12],
    [1, 2],
    [0, 0],
  ] as const) {
    const token = cryptoIds.randomToken(bytes);
    assert.is(token.length, length, `${bytes} bytes`);
    assert.match(token, /^[A-Za-z0-9_-]*$/);
    assert.is(Buffer.from(token, "base64url").length, bytes);
  }
  assert.is.not(cryptoIds.randomToken(32), cryptoIds.randomToken(32));
});

Ids.run();
