// CSRF pieces shared by both sites: constant-time comparison, the cross-site check, cookies, the form reader.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { cookie, cookieName, parseCookies } from "../../src/web/cookies.js";
import { fromAnotherSite, sameSecret } from "../../src/web/csrf.js";
import { readForm } from "../../src/web/forms.js";

const Csrf = suite("web/csrf");

Csrf("sameSecret: equal non-empty strings only", () => {
  assert.is(sameSecret("abc", "abc"), true);
  assert.is(sameSecret("abc", "abd"), false);
  assert.is(sameSecret("abc", "abcd"), false);
  assert.is(sameSecret("", ""), false);
});

Csrf("fromAnotherSite: a foreign Origin or a cross-site Sec-Fetch-Site is refused", () => {
  const own = "http://127.0.0.1:8082";
  assert.is(fromAnotherSite(own, "same-origin", own), false);
  assert.is(fromAnotherSite(undefined, undefined, own), false);
  assert.is(fromAnotherSite(undefined, "none", own), false);
  assert.is(fromAnotherSite("https://evil.example", undefined, own), true);
  assert.is(fromAnotherSite(own, "same-site", own), true);
  assert.is(fromAnotherSite(undefined, "cross-site", own), true);
});

Csrf("cookies: HttpOnly, SameSite=Lax, __Host- and Secure over https", () => {
  assert.is(
    cookie(cookieName("s", true), "v", { secure: true, maxAge: 60 }),
    "__Host-s=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure",
  );
  assert.is(
    cookie(cookieName("s", false), "v", { secure: false, maxAge: 0 }),
    "s=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=0",
  );
  assert.equal(
    [...parseCookies("a=1; b = 2;c=x=y; junk")],
    [
      ["a", "1"],
      ["b", "2"],
      ["c", "x=y"],
    ],
  );
});

Csrf("readForm: urlencoded UTF-8 within the limit only", async () => {
  const server = http.createServer(async (request, response) => {
    const form = await readForm(request, 64);
    response.end(form ? JSON.stringify([...form]) : "undefined");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const post = async (body: string | Uint8Array, type = "application/x-www-form-urlencoded") =>
    (await fetch(url, { method: "POST", headers: { "content-type": type }, body })).text();
  try {
    assert.is(await post("a=1&b=%C3%A9"), '[["a","1"],["b","é"]]');
    assert.is(await post("a=1", "application/json"), "undefined");
    assert.is(await post("a=%FF"), "undefined");
    assert.is(await post("a=%00"), "undefined");
    assert.is(await post(new Uint8Array([0x61, 0x3d, 0xff])), "undefined");
    assert.is(await post(`a=${"x".repeat(100)}`), "undefined");
  } finally {
    server.close();
  }
});

Csrf.run();
