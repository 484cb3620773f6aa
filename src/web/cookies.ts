// Cookies of both sites: reading the Cookie header, and writing ours (HttpOnly, SameSite=Lax, Path=/, Secure over
// https). Moved here from src/consent/sessions.ts so the console site writes them the same way.

/** Reads a Cookie header into name → value (a repeated name: the last wins). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    cookies.set(part.slice(0, index).trim(), part.slice(index + 1).trim());
  }
  return cookies;
}

/**
 * A Set-Cookie value with our attributes; maxAge 0 deletes. HttpOnly always: no page script ever reads a session
 * or CSRF cookie. SameSite=Lax: a link from another site still arrives signed in, a cross-site POST does not.
 */
export function cookie(name: string, value: string, options: { secure: boolean; maxAge: number }): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${options.maxAge}${options.secure ? "; Secure" : ""}`;
}

/**
 * A cookie name, `__Host-` prefixed over https (RFC 6265bis section 4.1.3.2): the browser keeps such a cookie only
 * when it is Secure, has Path=/ and no Domain, so no sibling host (and no plain-http page) can set or shadow it.
 * Over plain http (local use) the prefix would make browsers drop it.
 */
export function cookieName(base: string, secure: boolean): string {
  return `${secure ? "__Host-" : ""}${base}`;
}
