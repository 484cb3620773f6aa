// src/grant/authorization.ts, its parts that need no database: reading the authorize query (RFC 6749 section 3.1:
// a repeated parameter is an error), the redirect back to the client, and the shape of an authorization code.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { newAuthorizationCode, readAuthorizationParams, redirectTo } from "../../src/grant/authorization.js";
import { cryptoIds, type IdSource } from "../../src/runtime/ids.js";

const Authorization = suite("grant/authorization");

Authorization("codes carry 256 random bits (43 base64url characters)", () => {
  const sizes: number[] = [];
  const ids: IdSource = {
    uuid: () => "00000000-0000-4000-8000-000000000000",
    randomToken: (bytes) => {
      sizes.push(bytes);
      return "C".repeat(43);
    },
  };
  assert.is(newAuthorizationCode(ids), "C".repeat(43));
  assert.equal(sizes, [32]);
  assert.match(newAuthorizationCode(cryptoIds), /^[A-Za-z0-9_-]{43}$/);
});

Authorization("the known parameters are read once each; repeated ones are named; unknown ones are ignored", () => {
  const query = new URLSearchParams("response_type=code&client_id=a&client_id=b&state=s&scope=x&other=1&state=t");
  const { params, repeated } = readAuthorizationParams(query);
  assert.equal(params, { response_type: "code", client_id: "a", state: "s", scope: "x" });
  assert.equal(repeated, ["client_id", "state"]);
  assert.equal(readAuthorizationParams(new URLSearchParams("")), { params: {}, repeated: [] });
});

Authorization("the redirect keeps the registered URI's own query and spelling, and adds ours after it", () => {
  assert.is(
    redirectTo("https://app.example/cb", { code: "c", state: "s t" }),
    "https://app.example/cb?code=c&state=s+t",
  );
  assert.is(
    redirectTo("https://app.example/cb?tenant=A%20B", { error: "access_denied", state: "s" }),
    "https://app.example/cb?tenant=A%20B&error=access_denied&state=s",
  );
});

Authorization.run();
