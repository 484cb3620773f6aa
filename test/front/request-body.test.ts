// src/front/request-body.ts: form and query parameters (a repeated name becomes a list), and reading a body from an
// in-memory request: the media type picks the decoder, a body over the limit is refused (413) without reading on.
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { collectParams, parseForm, readBody } from "../../src/front/request-body.js";

const RequestBody = suite("front/request-body");

/** An in-memory request: the given headers and body chunks, no socket. */
function request(headers: Record<string, string>, ...chunks: string[]): IncomingMessage & { paused: () => boolean } {
  const stream = Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
  return Object.assign(stream, { headers, paused: () => stream.isPaused() }) as unknown as IncomingMessage & { paused: () => boolean };
}

RequestBody("form: WHATWG urlencoded, '+' is a space and %XX is decoded; a repeated key becomes a list in order", () => {
  assert.equal(parseForm("grant_type=authorization_code&code=a%2Bb&redirect_uri=https%3A%2F%2Fa.test%2Fcb&scope=a+b"), {
    grant_type: "authorization_code",
    code: "a+b",
    redirect_uri: "https://a.test/cb",
    scope: "a b",
  });
  assert.equal(parseForm("store_ids=1&x=y&store_ids=2&store_ids=3"), { store_ids: ["1", "2", "3"], x: "y" });
});

RequestBody("form: an empty text has no fields; a key without '=' is an empty value", () => {
  assert.equal(parseForm(""), {});
  assert.equal(parseForm("flag&x="), { flag: "", x: "" });
});

RequestBody("query parameters collect the same way", () => {
  assert.equal(collectParams(new URLSearchParams("limit=10&cursor=abc")), { limit: "10", cursor: "abc" });
  assert.equal(collectParams(new URL("https://a.test/v1/items?id=1&id=2").searchParams), { id: ["1", "2"] });
  assert.equal(collectParams(new URLSearchParams()), {});
});

RequestBody("JSON: the media type's parameters and case are ignored", async () => {
  assert.equal(await readBody(request({ "content-type": "application/json; charset=utf-8" }, '{"name":', '"Tea"}'), 1024), {
    kind: "json",
    value: { name: "Tea" },
  });
  assert.equal(await readBody(request({ "content-type": "Application/JSON" }, "[1,2]"), 1024), { kind: "json", value: [1, 2] });
});

RequestBody("form body: decoded into fields", async () => {
  assert.equal(await readBody(request({ "content-type": "application/x-www-form-urlencoded" }, "a=1&a=2&b=x+y"), 1024), {
    kind: "form",
    value: { a: ["1", "2"], b: "x y" },
  });
});

RequestBody("no body and no media type: empty; a declared JSON body that is empty or broken: malformed_body", async () => {
  assert.equal(await readBody(request({}), 1024), { kind: "empty" });
  assert.equal(await readBody(request({ "content-type": "application/json" }), 1024), { kind: "error", code: "request.malformed_body" });
  assert.equal(await readBody(request({ "content-type": "application/json" }, "{"), 1024), { kind: "error", code: "request.malformed_body" });
});

RequestBody("other media types, or a body without one: unsupported_media_type naming it", async () => {
  assert.equal(await readBody(request({ "content-type": "text/plain; charset=utf-8" }, "x"), 1024), {
    kind: "error",
    code: "request.unsupported_media_type",
    contentType: "text/plain",
  });
  assert.equal(await readBody(request({}, "x"), 1024), { kind: "error", code: "request.unsupported_media_type", contentType: "(none)" });
});

RequestBody("a declared Content-Length over the limit is refused before reading", async () => {
  const req = request({ "content-type": "application/json", "content-length": "11" }, "{}");
  assert.equal(await readBody(req, 10), { kind: "error", code: "request.body_too_large", limit: 10 });
  assert.ok(req.paused(), "reading stops");
});

RequestBody("a body that grows over the limit while read is refused; exactly the limit is read", async () => {
  const req = request({ "content-type": "application/json" }, '"abcd', 'efgh"', "  ");
  assert.equal(await readBody(req, 10), { kind: "error", code: "request.body_too_large", limit: 10 });
  assert.equal(await readBody(request({ "content-type": "application/json" }, '"abcd', 'efgh"'), 10), { kind: "json", value: "abcdefgh" });
});

RequestBody.run();
