// src/credential/app-links.ts: what an app's website, privacy policy and terms links may be (an absolute https URL
// on a named host, at most 2,000 characters, no user name or password), what a create or update sets, and which
// links review still needs.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { appLinkRuleBroken, checkAppLinks, maxAppLinkLength, missingAppLinks } from "../../src/credential/app-links.js";

const AppLinks = suite("credential/app-links");

AppLinks("an absolute https URL on a named host, at most 2,000 characters, without credentials", () => {
  assert.is(maxAppLinkLength, 2000);
  for (const ok of [
    "https://shop.example.com",
    "https://shop.example.com/privacy?lang=en#cookies",
    "HTTPS://SHOP.EXAMPLE.COM/Terms",
    "https://localhost:8443/terms",
    "https://xn--mgbh0fb.example/",
    `https://shop.example.com/${"p".repeat(maxAppLinkLength - 25)}`,
  ]) {
    assert.is(appLinkRuleBroken(ok), undefined, ok);
  }
  const broken: Array<[string, string]> = [
    [`https://shop.example.com/${"p".repeat(maxAppLinkLength - 24)}`, "max_length_2000"],
    ["shop.example.com/privacy", "not_a_url"],
    ["https://", "not_a_url"],
    ["https:shop.example.com", "not_a_url"],
    ["https:/shop.example.com", "not_a_url"],
    ["https:\\\\shop.example.com\\privacy", "not_a_url"],
    ["https://shop.example.com/pri vacy", "not_a_url"],
    ["https://shop.example.com/\u0000", "not_a_url"],
    ["http://shop.example.com/privacy", "https_required"],
    ["http://localhost:3000/privacy", "https_required"],
    ["http://127.0.0.1/terms", "https_required"],
    ["javascript:alert(1)", "https_required"],
    ["data:text/html,hi", "https_required"],
    ["ftp://shop.example.com/terms", "https_required"],
    ["https://user@shop.example.com/", "credentials_not_allowed"],
    ["https://user:secret@shop.example.com/", "credentials_not_allowed"],
    ["https://:secret@shop.example.com/", "credentials_not_allowed"],
  ];
  for (const [link, rule] of broken) assert.is(appLinkRuleBroken(link), rule, link);
});

AppLinks("a create or update: given links trimmed, empty ones removed (null), absent ones left out", () => {
  assert.equal(
    checkAppLinks({ website_url: "  https://shop.example.com/ ", privacy_policy_url: "", terms_url: undefined }),
    { links: { website_url: "https://shop.example.com/", privacy_policy_url: null }, violations: [] },
  );
  assert.equal(checkAppLinks({}), { links: {}, violations: [] });
  assert.equal(
    checkAppLinks({
      website_url: "http://shop.example.com/",
      privacy_policy_url: "https://shop.example.com/privacy",
      terms_url: "terms",
    }),
    {
      links: { privacy_policy_url: "https://shop.example.com/privacy" },
      violations: [
        { field: "website_url", rule: "https_required" },
        { field: "terms_url", rule: "not_a_url" },
      ],
    },
  );
});

AppLinks("review needs all three: the missing ones in the fields' order", () => {
  assert.equal(missingAppLinks({ website_url: null, privacy_policy_url: "https://a.example/", terms_url: null }), [
    "website_url",
    "terms_url",
  ]);
  assert.equal(
    missingAppLinks({
      website_url: "https://a.example/",
      privacy_policy_url: "https://a.example/p",
      terms_url: "https://a.example/t",
    }),
    [],
  );
});

AppLinks.run();
