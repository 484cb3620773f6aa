// Redirect URI registration rules (spec, "Redirect URI registration"): at most five per app; https, or http on
// localhost / 127.0.0.1 with any port; no fragment; at most 512 characters. Matching later is by exact string,
// so a URI is stored exactly as given, never normalised.

/** Spec: up to five URIs per app. */
export const maxRedirectUris = 5;
/** Spec: each at most 512 characters. */
export const maxRedirectUriLength = 512;

/** The rule a redirect URI breaks; the `rule` of a `developer.redirect_uri_invalid` detail. */
export type RedirectUriRule = "max_length_512" | "not_a_url" | "fragment_not_allowed" | "https_required" | "duplicate";

/** One violation: which entry (`redirect_uris[2]`) and which rule. */
export interface RedirectUriViolation {
  field: string;
  rule: RedirectUriRule;
}

/** Hosts on which plain http is allowed: loopback for native and development clients (RFC 8252 section 7.3). */
const loopbackHosts = new Set(["localhost", "127.0.0.1"]);

/** The rule `uri` breaks, or undefined when it may be registered. */
export function redirectUriRuleBroken(uri: string): Exclude<RedirectUriRule, "duplicate"> | undefined {
  if (uri.length > maxRedirectUriLength) return "max_length_512";
  // Whitespace and control characters would be silently trimmed or escaped by a URL parser, so the stored string
  // would not be the one a client sends: refuse them outright.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this expression is for.
  if (uri.length === 0 || /[\s\u0000-\u001f\u007f]/.test(uri)) return "not_a_url";
  if (uri.includes("#")) return "fragment_not_allowed";
  const url = URL.parse(uri);
  if (!url) return "not_a_url";
  if (url.protocol === "https:" && url.hostname !== "") return undefined;
  if (url.protocol === "http:" && loopbackHosts.has(url.hostname) && url.username === "" && url.password === "") {
    return undefined;
  }
  return "https_required";
}

/** Every violation in a proposed set of redirect URIs, in order; empty when the set may be stored. */
export function redirectUriViolations(uris: readonly string[]): RedirectUriViolation[] {
  const violations: RedirectUriViolation[] = [];
  const seen = new Set<string>();
  uris.forEach((uri, index) => {
    const field = `redirect_uris[${index}]`;
    const rule = redirectUriRuleBroken(uri) ?? (seen.has(uri) ? "duplicate" : undefined);
    if (rule) violations.push({ field, rule });
    seen.add(uri);
  });
  return violations;
}
