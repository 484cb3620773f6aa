// src/errors/message.ts: the param names a template uses (templateParams), placeholder filling (interpolate), and
// messageFor: a code's message in each locale, English by default, params filled in.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { interpolate, messageFor, templateParams } from "../../src/errors/message.js";

const Message = suite("errors/message");

Message("templateParams: the names in order of first use, each once", () => {
  assert.equal(templateParams("{b} then {a}, again {b} and {c_1}"), ["b", "a", "c_1"]);
  assert.equal(templateParams("Wait {retryAfter} seconds."), ["retryAfter"]);
});

Message("templateParams: none in plain text; braces around anything but [A-Za-z0-9_]+ are not placeholders", () => {
  assert.equal(templateParams("no params here"), []);
  assert.equal(templateParams("{} { a } {a-b} {a.b} {{x}}"), ["x"]);
});

Message("interpolate: a value is inserted literally: $-patterns and placeholder-like text are not expanded", () => {
  assert.is(interpolate("Allowed: {allow}.", { allow: "$& $1 $$" }), "Allowed: $& $1 $$.");
  assert.is(interpolate("{a} {b}", { a: "{b}", b: "B" }), "{b} B");
});

Message("interpolate: an own param set to undefined counts as missing; numbers are written in decimal", () => {
  const params = { retryAfter: undefined };
  assert.is(interpolate("Wait {retryAfter} s", params), "Wait  s");
  assert.is(interpolate("{n}|{m}|{z}", { n: 1048576, m: -2.5, z: 0 }), "1048576|-2.5|0");
});

Message("interpolate: a template that is not a placeholder is left as it is, and no params means none filled", () => {
  assert.is(interpolate("Use {a-b} or { a }."), "Use {a-b} or { a }.");
  assert.is(interpolate("Wait {retryAfter} seconds."), "Wait  seconds.");
});

Message("messageFor: English by default, params filled in", () => {
  assert.is(
    messageFor("partner.rate_limited", { retryAfter: 39 }),
    "Rate limit exceeded. Wait 39 seconds before sending more requests.",
  );
  assert.is(
    messageFor("request.method_not_allowed", { allow: "GET, POST" }),
    "This method is not allowed here. Allowed methods: GET, POST.",
  );
  assert.is(messageFor("partner.window_too_large"), "The report window is longer than the maximum allowed.");
});

Message("messageFor: the message of the locale asked for (ar, hi), params filled in", () => {
  assert.is(
    messageFor("oauth.rate_limited", { retryAfter: 12 }, "ar"),
    "طلبات رموز كثيرة جدًا. انتظر 12 ثانية قبل المحاولة مرة أخرى.",
  );
  assert.is(
    messageFor("oauth.rate_limited", { retryAfter: 12 }, "hi"),
    "बहुत अधिक टोकन अनुरोध। फिर से प्रयास करने से पहले 12 सेकंड प्रतीक्षा करें।",
  );
  assert.is(
    messageFor("oauth.rate_limited", { retryAfter: 12 }, "en"),
    "Too many token requests. Wait 12 seconds before trying again.",
  );
});

Message("messageFor: a missing param never shows its name, in any locale", () => {
  for (const locale of ["en", "ar", "hi"] as const) {
    const message = messageFor("request.method_not_allowed", {}, locale);
    assert.not.match(message, "{allow}");
    assert.not.match(message, "allow}");
  }
  assert.is(messageFor("request.method_not_allowed", {}), "This method is not allowed here. Allowed methods: .");
});

Message("interpolate: fills params, and a missing param never shows its name", () => {
  assert.is(interpolate("Wait {retryAfter} seconds.", { retryAfter: 3 }), "Wait 3 seconds.");
  assert.is(interpolate("Wait {retryAfter} seconds.", {}), "Wait  seconds.");
  assert.is(interpolate("{a}{b}{a}", { a: "x", b: 0 }), "x0x");
  assert.is(interpolate("no params", { a: 1 }), "no params");
  assert.is(interpolate("{toString}", {}), "", "inherited properties are not params");
  assert.is(
    messageFor("request.body_too_large", { limit: 1048576 }),
    "The request body is larger than the limit of 1048576 bytes.",
  );
});

Message.run();
