// Client authentication on the token endpoints: credentials in the body or as HTTP Basic, decoded as RFC 6749
// section 2.3.1 says (the id and secret are form-urlencoded, then joined by ":" and base64-encoded).

export interface BasicCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * Decodes `Authorization: Basic ...`. Returns undefined when the header is absent or uses another scheme, and
 * "malformed" when it claims Basic but does not decode.
 */
export function parseBasicCredentials(authorization: string | undefined): BasicCredentials | "malformed" | undefined {
  if (!authorization) return undefined;
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(authorization);
  if (!match) return /^Basic\b/i.test(authorization) ? "malformed" : undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return "malformed";
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return "malformed";
  }
}

/** application/x-www-form-urlencoded decoding of one value: "+" is a space, then percent-decoding. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "));
}
