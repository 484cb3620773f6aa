// src/front/request-body.ts: form and query parameters (a repeated name becomes a list), and reading a body from an
// in-memory request: the media type picks the decoder, a body over the limit is refused (413) without reading on.
import { Readable } from "node:stream";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { type BodySource, collectParams, maxRequestFields, parseForm, readBody } from "../../src/front/request-body.js";

const RequestBody = suite("front/request-body");

/** The parsed map's own entries as a plain object, for deep comparison (the map itself has no prototype). */
function plain(params: Record<string, string | string[]>): Record<string, string | string[]> {
  assert.is(Object.getPrototypeOf(params), null, "a map without a prototype");
  return { ...params };
}

/** An in-memory request: the given headers and body chunks, no socket. */
function request(headers: Record<string, string>, ...chunks: string[]): BodySource & { paused: () => boolean } {
  const stream = Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
  return Object.assign(stream, { headers, paused: () => stream.isPaused() });
}

RequestBody(
  "form: WHATWG urlencoded, '+' is a space and %XX is decoded; a repeated key becomes a list in order",
  () => {
    assert.equal(
      plain(parseForm("grant_type=authorization_code&code=a%2Bb&redirect_uri=https%3A%2F%2Fa.test%2Fcb&scope=a+b")),
      {
        grant_type: "authorization_code",
        code: "a+b",
        redirect_uri: "https://a.test/cb",
        scope: "a b",
      },
    );
    assert.equal(plain(parseForm("store_ids=1&x=y&store_ids=2&store_ids=3")), { store_ids: ["1", "2", "3"], x: "y" });
  },
);

RequestBody("form: an empty text has no fields; a key without '=' is an empty value", () => {
  assert.equal(plain(parseForm("")), {});
  assert.equal(plain(parseForm("flag&x=")), { flag: "", x: "" });
});

RequestBody("query parameters collect the same way", () => {
  assert.equal(plain(collectParams(new URLSearchParams("limit=10&cursor=abc"))), { limit: "10", cursor: "abc" });
  assert.equal(plain(collectParams(new URL("https://a.test/v1/items?id=1&id=2").searchParams)), { id: ["1", "2"] });
  assert.equal(plain(collectParams(new URLSearchParams())), {});
});

RequestBody("form and query: maps without a prototype; __proto__, constructor and toString are plain keys", () => {
  const parsed = parseForm("__proto__=a&constructor=b&toString=c&toString=d&hasOwnProperty=e");
  assert.is(Object.getPrototypeOf(parsed), null);
  assert.equal({ ...parsed }, { ["__proto__"]: "a", constructor: "b", toString: ["c", "d"], hasOwnProperty: "e" });
  assert.ok(Object.hasOwn(parsed, "__proto__"), "__proto__ is an own key, not the prototype");
  const query = collectParams(new URLSearchParams("constructor=1"));
  assert.is(Object.getPrototypeOf(query), null);
  assert.is(query["constructor"], "1", "an inherited constructor is not mistaken for an earlier value");
});

RequestBody("a key repeated 32,768 times becomes one list of every value, in order", () => {
  const parsed = parseForm("a=0&" + "a=1&".repeat(32_766) + "a=2");
  const values = parsed["a"] as string[];
  assert.is(values.length, 32_768);
  assert.is(values[0], "0");
  assert.is(values[32_767], "2");
});

RequestBody("JSON: the media type's parameters and case are ignored", async () => {
  assert.equal(
    await readBody(request({ "content-type": "application/json; charset=utf-8" }, '{"name":', '"Tea"}'), 1024),
    {
      kind: "json",
      value: { name: "Tea" },
    },
  );
  assert.equal(await readBody(request({ "content-type": "Application/JSON" }, "[1,2]"), 1024), {
    kind: "json",
    value: [1, 2],
  });
});

RequestBody("form body: decoded into fields", async () => {
  const body = await readBody(request({ "content-type": "application/x-www-form-urlencoded" }, "a=1&a=2&b=x+y"), 1024);
  assert.is(body.kind, "form");
  assert.equal(plain((body as { value: Record<string, string | string[]> }).value), { a: ["1", "2"], b: "x y" });
});

RequestBody(
  "no body and no media type: empty; a declared JSON body that is empty or broken: malformed_body",
  async () => {
    assert.equal(await readBody(request({}), 1024), { kind: "empty" });
    assert.equal(await readBody(request({ "content-type": "application/json" }), 1024), {
      kind: "error",
      code: "request.malformed_body",
    });
    assert.equal(await readBody(request({ "content-type": "application/json" }, "{"), 1024), {
      kind: "error",
      code: "request.malformed_body",
    });
  },
);

RequestBody("other media types, or a body without one: unsupported_media_type naming it", async () => {
  assert.equal(await readBody(request({ "content-type": "text/plain; charset=utf-8" }, "x"), 1024), {
    kind: "error",
    code: "request.unsupported_media_type",
    contentType: "text/plain",
  });
  assert.equal(await readBody(request({}, "x"), 1024), {
    kind: "error",
    code: "request.unsupported_media_type",
    contentType: "(none)",
  });
});

RequestBody("a declared Content-Length over the limit is refused before reading", async () => {
  const req = request({ "content-type": "application/json", "content-length": "11" }, "{}");
  assert.equal(await readBody(req, 10), { kind: "error", code: "request.body_too_large", limit: 10 });
  assert.ok(req.paused(), "reading stops");
});

RequestBody("a body that grows over the limit while read is refused; exactly the limit is read", async () => {
  const req = request({ "content-type": "application/json" }, '"abcd', 'efgh"', "  ");
  assert.equal(await readBody(req, 10), { kind: "error", code: "request.body_too_large", limit: 10 });
  assert.equal(await readBody(request({ "content-type": "application/json" }, '"abcd', 'efgh"'), 10), {
    kind: "json",
    value: "abcdefgh",
  });
});

RequestBody(
  "UTF-8 only: another charset is 415 naming it, bytes that are not UTF-8 a malformed body, a form names the pairs that do not decode",
  async () => {
    assert.equal(await readBody(request({ "content-type": "application/json; charset=UTF-16" }, "{}"), 1024), {
      kind: "error",
      code: "request.unsupported_media_type",
      contentType: "application/json; charset=utf-16",
    });
    assert.equal(await readBody(request({ "content-type": 'application/json; charset="utf-8"' }, "{}"), 1024), {
      kind: "json",
      value: {},
    });
    const latin1: BodySource = Object.assign(Readable.from([Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d])]), {
      headers: { "content-type": "application/json" },
    });
    assert.equal(await readBody(latin1, 1024), { kind: "error", code: "request.malformed_body" });
    const form = await readBody(
      request({ "content-type": "application/x-www-form-urlencoded" }, "a=%FF&b=ok&c%ED%A0%80=1&d=%E2%80%AE&e=%zz"),
      1024,
    );
    assert.is(form.kind, "form");
    assert.equal(form.kind === "form" ? form.invalidUtf8 : undefined, ["a", "c\uFFFD\uFFFD\uFFFD"]);
  },
);

RequestBody(
  "more fields than any route accepts: refused before decoding, form and JSON alike; exactly the limit is read",
  async () => {
    const form = (pairs: number) =>
      request({ "content-type": "application/x-www-form-urlencoded" }, "%FF&".repeat(pairs));
    const refused = {
      kind: "invalid",
      violations: [{ field: "(body)", rule: `must have at most ${maxRequestFields} fields` }],
    };
    assert.equal(await readBody(form(maxRequestFields + 1), 65_536), refused);
    const atLimit = await readBody(form(maxRequestFields), 65_536);
    assert.is(atLimit.kind, "form");
    const json = (members: number) =>
      request(
        { "content-type": "application/json" },
        JSON.stringify(Object.fromEntries(Array.from({ length: members }, (_, n) => [`k${n}`, n]))),
      );
    assert.equal(await readBody(json(maxRequestFields + 1), 65_536), refused);
    assert.is((await readBody(json(maxRequestFields), 65_536)).kind, "json");
  },
);

RequestBody(
  "a JSON member name repeated within one object is refused, naming its path; the same name in two objects is not",
  async () => {
    const json = (text: string) => readBody(request({ "content-type": "application/json" }, text), 1024);
    assert.equal(await json('{"name":"a","name":"b"}'), {
      kind: "invalid",
      violations: [{ field: "name", rule: "must not be sent more than once" }],
    });
    assert.equal(await json('{"lines":[{"q":1},{"q":1,"\\u0071":2}]}'), {
      kind: "invalid",
      violations: [{ field: "lines.1.q", rule: "must not be sent more than once" }],
    });
    assert.equal(await json('{"a":{"x":1},"b":{"x":1}}'), { kind: "json", value: { a: { x: 1 }, b: { x: 1 } } });
  },
);

RequestBody.run();
