// The authorize helpers on their own: the URL's parameters and PKCE pair, and the callback checks in the spec's
// order (error before code, state compared on both paths).
import { createHash } from "node:crypto";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { AuthorizationCallbackError, createAuthorizationRequest, validateCallback } from "../../src/client/index.js";
import { constantTimeEqual, jwtExpiry } from "../../src/client/encoding.js";

const Authorization = suite("client/authorization");

const input = {
  authUrl: "https://auth.example.test",
  clientId: "lp_app_sbABC",
  redirectUri: "https://app.example.test/cb?x=1",
};

function callbackError(run: () => unknown): AuthorizationCallbackError {
  try {
    run();
  } catch (error) {
    assert.instance(error, AuthorizationCallbackError);
    return error as AuthorizationCallbackError;
  }
  throw new Error("expected the callback to be refused");
}

Authorization(
  "authorize URL: the spec's parameters, a 43-character state, a S256 challenge of a 43-character verifier",
  async () => {
    const pending = await createAuthorizationRequest(input);
    const url = new URL(pending.url);
    assert.is(url.origin + url.pathname, "https://auth.example.test/oauth/authorize");
    assert.equal(
      [...url.searchParams.keys()],
      ["response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method"],
    );
    assert.is(url.searchParams.get("response_type"), "code");
    assert.is(url.searchParams.get("client_id"), "lp_app_sbABC");
    assert.is(url.searchParams.get("redirect_uri"), "https://app.example.test/cb?x=1");
    assert.is(url.searchParams.get("state"), pending.state);
    assert.match(pending.state, /^[A-Za-z0-9_-]{43}$/);
    assert.match(pending.codeVerifier, /^[A-Za-z0-9_-]{43}$/);
    assert.is(
      url.searchParams.get("code_challenge"),
      createHash("sha256").update(pending.codeVerifier).digest("base64url"),
    );
    assert.is(url.searchParams.get("code_challenge_method"), "S256");
    assert.is(pending.redirectUri, input.redirectUri);
    const other = await createAuthorizationRequest({ ...input, scope: "items.read" });
    assert.is.not(other.state, pending.state);
    assert.is.not(other.codeVerifier, pending.codeVerifier);
    assert.is(new URL(other.url).searchParams.get("scope"), "items.read");
  },
);

Authorization("callback with a code: code and merchant_id returned when state matches", () => {
  const result = validateCallback("https://app.example.test/cb?x=1&code=abc&state=s-1&merchant_id=42", "s-1");
  assert.equal(result, { code: "abc", merchantId: 42 });
  assert.equal(validateCallback(new URLSearchParams("code=c&state=s&merchant_id=7"), "s"), {
    code: "c",
    merchantId: 7,
  });
});

Authorization("error before code: access_denied with a matching state is the merchant's refusal", () => {
  const error = callbackError(() =>
    validateCallback("/cb?error=access_denied&state=s-1&code=ignored&merchant_id=1", "s-1"),
  );
  assert.is(error.code, "access_denied");
  assert.is(error.oauthError, "access_denied");
  assert.is(error.status, 0);
  assert.is(error.shape, "authorize");
});

Authorization("state is compared on both paths", () => {
  assert.is(
    callbackError(() => validateCallback("/cb?error=access_denied&state=forged", "s-1")).code,
    "client.state_mismatch",
  );
  assert.is(callbackError(() => validateCallback("/cb?error=access_denied", "s-1")).code, "client.state_mismatch");
  assert.is(
    callbackError(() => validateCallback("/cb?code=abc&state=s-2&merchant_id=1", "s-1")).code,
    "client.state_mismatch",
  );
  assert.is(callbackError(() => validateCallback("/cb?code=abc&merchant_id=1", "s-1")).code, "client.state_mismatch");
  assert.is(
    callbackError(() => validateCallback("/cb?code=abc&state=&merchant_id=1", "")).code,
    "client.state_mismatch",
  );
});

Authorization(
  "with the issuer known, iss must name it exactly on both paths, checked first (RFC 9207 section 2.4)",
  () => {
    const issuer = "https://api.example.test";
    assert.equal(validateCallback(`/cb?code=c&state=s&merchant_id=7&iss=${encodeURIComponent(issuer)}`, "s", issuer), {
      code: "c",
      merchantId: 7,
    });
    assert.is(
      callbackError(() =>
        validateCallback(`/cb?error=access_denied&state=s&iss=${encodeURIComponent(issuer)}`, "s", issuer),
      ).code,
      "access_denied",
    );
    for (const query of [
      "code=c&state=s&merchant_id=7",
      "code=c&state=s&merchant_id=7&iss=https%3A%2F%2Fevil.example.test",
      "code=c&state=s&merchant_id=7&iss=https%3A%2F%2Fapi.example.test%2F",
      "error=access_denied&state=forged&iss=https%3A%2F%2Fevil.example.test",
    ]) {
      const error = callbackError(() => validateCallback(`/cb?${query}`, "s", issuer));
      assert.equal([error.code, error.shape, error.status], ["client.issuer_mismatch", "authorize", 0], query);
    }
    assert.is(
      callbackError(() => validateCallback(`/cb?code=c&state=s&merchant_id=7&iss=${issuer}&iss=${issuer}`, "s", issuer))
        .code,
      "client.callback_invalid",
    );
  },
);

Authorization(
  "a callback without a usable code or merchant_id, or with a repeated parameter, is client.callback_invalid",
  () => {
    for (const query of [
      "state=s",
      "code=&state=s&merchant_id=1",
      "code=a&state=s",
      "code=a&state=s&merchant_id=0",
      "code=a&state=s&merchant_id=1e3",
      "code=a&code=b&state=s&merchant_id=1",
      "code=a&state=s&state=s&merchant_id=1",
    ]) {
      assert.is(callbackError(() => validateCallback(`/cb?${query}`, "s")).code, "client.callback_invalid", query);
    }
  },
);

Authorization("constant-time comparison and the JWT exp", () => {
  assert.ok(constantTimeEqual("abc", "abc"));
  assert.not.ok(constantTimeEqual("abc", "abd"));
  assert.not.ok(constantTimeEqual("abc", "abcd"));
  assert.not.ok(constantTimeEqual("", "a"));
  const payload = Buffer.from(JSON.stringify({ exp: 1_900_000_000, sub: "x" })).toString("base64url");
  assert.is(jwtExpiry(`e30.${payload}.sig`), 1_900_000_000_000);
  assert.is(jwtExpiry("opaque"), undefined);
  assert.is(jwtExpiry("a.!!!.c"), undefined);
});

Authorization.run();
