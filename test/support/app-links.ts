// The three links an app needs before review (src/credential/app-links.ts), for tests whose apps are submitted.
export const reviewLinks = {
  websiteUrl: "https://partner.example.com/",
  privacyPolicyUrl: "https://partner.example.com/privacy",
  termsUrl: "https://partner.example.com/terms",
} as const;
