// src/grant/pkce.ts: PKCE with S256 only (RFC 7636): the verifier's alphabet and length (section 4.1), the shape of
// an S256 challenge, and the challenge as base64url(SHA-256(verifier)) without padding (section 4.2).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { isCodeVerifier, isS256Challenge, s256 } from "../../src/grant/pkce.js";

const Pkce = suite("grant/pkce");

/** RFC 7636 appendix B: the example verifier and its S256 challenge. */
const appendixB = {
  verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
  challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
};

Pkce("RFC 7636 appendix B: S256 of the example verifier is the example challenge", () => {
  assert.is(s256(appendixB.verifier), appendixB.challenge);
  assert.ok(isCodeVerifier(appendixB.verifier));
  assert.ok(isS256Challenge(appendixB.challenge));
});

Pkce("RFC 7636 4.2: the challenge is 43 base64url characters without padding, and changes with the verifier", () => {
  const challenge = s256("a".repeat(128));
  assert.match(challenge, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(isS256Challenge(challenge));
  assert.is.not(s256(appendixB.verifier.slice(0, -1) + "Y"), appendixB.challenge);
});

Pkce("RFC 7636 4.1: a verifier is 43 to 128 characters", () => {
  assert.not.ok(isCodeVerifier("a".repeat(42)));
  assert.ok(isCodeVerifier("a".repeat(43)));
  assert.ok(isCodeVerifier("a".repeat(128)));
  assert.not.ok(isCodeVerifier("a".repeat(129)));
  assert.not.ok(isCodeVerifier(""));
});

Pkce("RFC 7636 4.1: a verifier uses only the unreserved characters A-Z a-z 0-9 - . _ ~", () => {
  const base = "a".repeat(42);
  for (const ok of ["-", ".", "_", "~", "Z", "9"]) assert.ok(isCodeVerifier(base + ok), ok);
  for (const bad of ["+", "/", "=", " ", "%", "é", "\n"])
    assert.not.ok(isCodeVerifier(base + bad), JSON.stringify(bad));
});

Pkce(
  "an S256 challenge is exactly 43 base64url characters: padding, base64 '+' '/' and other lengths are refused",
  () => {
    assert.not.ok(isS256Challenge(appendixB.challenge + "="));
    assert.not.ok(isS256Challenge(appendixB.challenge.slice(0, 42)));
    assert.not.ok(isS256Challenge(appendixB.challenge + "A"));
    assert.not.ok(isS256Challenge(appendixB.challenge.replace("-", "+")));
    assert.not.ok(isS256Challenge(appendixB.challenge.replace("-", "/")));
    assert.not.ok(isS256Challenge(""));
    assert.not.ok(isS256Challenge(appendixB.verifier.slice(0, 42) + "."), "a plain verifier-like value with '.'");
  },
);

Pkce.run();
