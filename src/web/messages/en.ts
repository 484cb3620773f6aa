// English: the reference catalogue. Its keys are the keys every language must have (src/web/messages/catalogue.ts);
// ar.ts and hi.ts fail to type-check when one is missing or extra. Keys are namespaced per site: common.* for the
// page shell of both sites, consent.* for the merchant's consent site, console.* for the developer console.
// `{name}` is a placeholder filled by t(key, { name }); the value is escaped where the page inserts it.
export const en = {
  // ---- common.* (both sites) ----
  "common.brand": "LP Partners",
  "common.skipToContent": "Skip to main content",
  "common.language": "Language",
  "common.languageName": "English",
  "common.siteNavigation": "Site",
  "common.signOut": "Sign out",
  "common.notFoundTitle": "Page not found",
  "common.notFoundText": "There is no page at this address.",
  "common.methodNotAllowedTitle": "Method not allowed",
  "common.methodNotAllowedText": "This page does not accept that method.",
  "common.refusedTitle": "Request refused",
  "common.formExpired": "The form expired. Go back and try again.",
  "common.otherSite": "This form was sent from another site.",
  "common.badRequestTitle": "Bad request",
  "common.formUnreadable": "The form could not be read.",
  "common.unavailableTitle": "Temporarily unavailable",
  "common.internalTitle": "Something went wrong",
  "common.errorCode": "Error code: {code}",
  "common.copy": "Copy",
  "common.copied": "Copied",
  "common.shownOnce": "Shown once: copy it now. It cannot be shown again.",
  "common.required": "required",
  "common.back": "Back",

  // ---- consent.* (the consent site) ----

  // ---- end of consent.* ----

  // ---- console.* (the developer console) ----
  "console.section": "Developer console",
} as const;
