// The app's public pages: its website, privacy policy and terms, which merchants open from the consent screen
// (docs/decisions.md, "Credentials": the app's links). Each is optional until the app is submitted for review,
// which needs all three. A link is an absolute https URL on a named host, at most 2,000 characters, without a
// user name or password, stored exactly as given (after trimming the ends); plain http is never allowed, not
// even on localhost: the merchant who follows it is on another machine.

/** The most characters a link may have (the column's check says the same). */
export const maxAppLinkLength = 2000;

/** The three links, by their API field names (snake case, as field paths in errors). */
export const appLinkFields = ["website_url", "privacy_policy_url", "terms_url"] as const;
export type AppLinkField = (typeof appLinkFields)[number];

/** The rule a link breaks; the `rule` of a `developer.app_link_invalid` error and its details. */
export type AppLinkRule = "max_length_2000" | "not_a_url" | "https_required" | "credentials_not_allowed";

export interface AppLinkViolation {
  field: AppLinkField;
  rule: AppLinkRule;
}

/** The links as stored: null when not given. */
export type AppLinks = Record<AppLinkField, string | null>;

/** The rule `link` (already trimmed, not empty) breaks, or undefined when it may be stored. */
export function appLinkRuleBroken(link: string): AppLinkRule | undefined {
  if (link.length > maxAppLinkLength) return "max_length_2000";
  // Whitespace and control characters would be dropped or escaped by a URL parser, so the link a merchant opens
  // would not be the one stored.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this expression is for.
  if (/[\s\u0000-\u001f\u007f]/.test(link)) return "not_a_url";
  // A backslash reads as a slash to a URL parser (https:\\host is https://host), and "https:host" without the
  // slashes is a relative link on a page served over https: a link must be spelled as the absolute URL it is.
  if (link.includes("\\")) return "not_a_url";
  const url = URL.parse(link);
  if (!url) return "not_a_url";
  if (url.protocol !== "https:") return "https_required";
  if (!/^https:\/\//i.test(link) || url.hostname === "") return "not_a_url";
  if (url.username !== "" || url.password !== "") return "credentials_not_allowed";
  return undefined;
}

/**
 * The links a create or update sets: for each field given, its trimmed value (null when empty: the link is
 * removed), and every violation among them, in the fields' order. A field not given (undefined) is left out.
 */
export function checkAppLinks(given: Partial<Record<AppLinkField, string | undefined>>): {
  links: Partial<AppLinks>;
  violations: AppLinkViolation[];
} {
  const links: Partial<AppLinks> = {};
  const violations: AppLinkViolation[] = [];
  for (const field of appLinkFields) {
    const value = given[field];
    if (value === undefined) continue;
    const link = value.trim();
    if (link === "") {
      links[field] = null;
      continue;
    }
    const rule = appLinkRuleBroken(link);
    if (rule) violations.push({ field, rule });
    else links[field] = link;
  }
  return { links, violations };
}

/** The links an app lacks, in the fields' order (what review needs: all three). */
export function missingAppLinks(links: AppLinks): AppLinkField[] {
  return appLinkFields.filter((field) => links[field] === null);
}
