// src/console/password-policy.ts: the console's minimum password strength (NIST SP 800-63B 5.1.1.2: length first,
// no composition rules): 12 to 128 characters, 5 different ones, not a common password, not the email's local part.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { maxPasswordLength, minPasswordLength, passwordWeakness } from "../../src/console/password-policy.js";

const PasswordPolicy = suite("console/password-policy");

const email = "jane.doe@example.com";

PasswordPolicy("NIST SP 800-63B 5.1.1.2: at least 8 characters, we ask 12; at most 128; no composition rules", () => {
  assert.is(minPasswordLength, 12);
  assert.is(maxPasswordLength, 128);
  assert.is(passwordWeakness("abcdefghijk", email), "at least 12 characters");
  assert.is(passwordWeakness("abcdefghijkl", email), undefined, "lower-case letters only are fine");
  assert.is(passwordWeakness("abcde".repeat(25) + "abc", email), undefined, "128 characters");
  assert.is(passwordWeakness("abcde".repeat(25) + "abcd", email), "at most 128 characters");
});

PasswordPolicy("length counts characters, not UTF-16 units", () => {
  const twelveEmoji = "😀😁😂🤣😃😀😁😂🤣😃😀😁";
  assert.is(twelveEmoji.length, 24);
  assert.is(passwordWeakness(twelveEmoji, email), undefined);
  assert.is(passwordWeakness(twelveEmoji.slice(0, 22), email), "at least 12 characters", "11 emoji");
});

PasswordPolicy("fewer than 5 different characters is refused", () => {
  assert.is(passwordWeakness("abababababab", email), "at least 5 different characters");
  assert.is(passwordWeakness("abcdabcdabcd", email), "at least 5 different characters");
  assert.is(passwordWeakness("abcdeabcdeab", email), undefined);
});

PasswordPolicy("common passwords are refused whatever their case", () => {
  for (const common of [
    "password1234",
    "Password1234",
    "123456789012",
    "QWERTYUIOPAS",
    "passwordpassword",
    "iloveyou1234",
    "Administrator",
  ]) {
    assert.is(passwordWeakness(common, email), "not a common password", common);
  }
});

PasswordPolicy("the email's local part (4 characters or more) may not appear in the password, in any case", () => {
  assert.is(passwordWeakness("my jane.doe secret", email), "must not contain your email address");
  assert.is(passwordWeakness("MY JANE.DOE SECRET", email), "must not contain your email address");
  assert.is(passwordWeakness("my jane.doe secret", "JANE.DOE@EXAMPLE.COM"), "must not contain your email address");
  assert.is(
    passwordWeakness("bob is my uncle", "bob@example.com"),
    undefined,
    "a local part under 4 characters is ignored",
  );
  assert.is(passwordWeakness("example.com rules", email), undefined, "only the local part counts");
});

PasswordPolicy("the first rule broken is reported: length before variety before common before email", () => {
  assert.is(passwordWeakness("aaaa", email), "at least 12 characters");
  assert.is(passwordWeakness("jjjjaaaannnn", "jjjjaaaannnn@example.com"), "at least 5 different characters");
});

PasswordPolicy.run();
