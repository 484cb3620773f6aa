// src/front/client-credentials.ts: client authentication by HTTP Basic on the token endpoints, decoded as RFC 6749
// section 2.3.1 says: the client id and secret are form-urlencoded, joined by ":", then base64-encoded.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { parseBasicCredentials } from "../../src/front/client-credentials.js";

const ClientCredentials = suite("front/client-credentials");

const basic = (text: string): string => "Basic " + Buffer.from(text, "utf8").toString("base64");

ClientCredentials("RFC 6749 2.3.1: the example header decodes to s6BhdRkqt3 and its secret", () => {
  assert.equal(parseBasicCredentials("Basic czZCaGRSa3F0Mzo3RmpmcDBaQnIxS3REUmJuZlZkbUl3"), {
    clientId: "s6BhdRkqt3",
    clientSecret: "7Fjfp0ZBr1KtDRbnfVdmIw",
  });
});

ClientCredentials(
  "RFC 6749 2.3.1: id and secret are form-urlencoded: '+' is a space, %XX is decoded, %3A is a colon",
  () => {
    assert.equal(parseBasicCredentials(basic("my+client:p%3Ass+word%21")), {
      clientId: "my client",
      clientSecret: "p:ss word!",
    });
    assert.equal(parseBasicCredentials(basic("caf%C3%A9:s%2Bcret")), { clientId: "café", clientSecret: "s+cret" });
  },
);

ClientCredentials("the first colon separates; an empty secret is still a pair", () => {
  assert.equal(parseBasicCredentials(basic("id:se:cret")), { clientId: "id", clientSecret: "se:cret" });
  assert.equal(parseBasicCredentials(basic("id:")), { clientId: "id", clientSecret: "" });
  assert.equal(parseBasicCredentials(basic(":secret")), { clientId: "", clientSecret: "secret" });
});

ClientCredentials("the scheme name is case-insensitive; extra spaces around the token are allowed", () => {
  const expected = { clientId: "lp_app_sbX", clientSecret: "lp_sk_sb_Y" };
  const token = Buffer.from("lp_app_sbX:lp_sk_sb_Y").toString("base64");
  assert.equal(parseBasicCredentials("basic " + token), expected);
  assert.equal(parseBasicCredentials("BASIC " + token), expected);
  assert.equal(parseBasicCredentials("Basic   " + token + "  "), expected);
});

ClientCredentials("no header, or another scheme: undefined (not client authentication by Basic)", () => {
  assert.is(parseBasicCredentials(undefined), undefined);
  assert.is(parseBasicCredentials(""), undefined);
  assert.is(parseBasicCredentials("Bearer abc"), undefined);
  assert.is(parseBasicCredentials("Basically czZCaGRSa3F0Mzo3"), undefined);
  assert.is(parseBasicCredentials("Digest username=x"), undefined);
});

ClientCredentials("Basic that does not decode: malformed", () => {
  assert.is(parseBasicCredentials("Basic"), "malformed");
  assert.is(parseBasicCredentials("Basic "), "malformed");
  assert.is(parseBasicCredentials("Basic !!!!"), "malformed");
  assert.is(parseBasicCredentials("Basic a b"), "malformed");
  assert.is(
    parseBasicCredentials("Basic " + Buffer.from("a:b").toString("base64url").replace(/=+$/, "") + "==="),
    "malformed",
  );
  assert.is(parseBasicCredentials(basic("no-colon-here")), "malformed");
  assert.is(parseBasicCredentials(basic("id:%zz")), "malformed", "a broken percent escape");
  assert.is(parseBasicCredentials(basic("%E0%A4%A:secret")), "malformed");
});

ClientCredentials.run();
