// The comma-separated settings (REGIONS, TRUST_PROXY, WEBHOOK_ALLOW_PRIVATE_NETWORKS, REDIS_SENTINELS) read one way:
// entries trimmed, empty ones (a trailing comma, ", ,") ignored.

/** The entries of a comma-separated setting, trimmed, without the empty ones. */
export function commaList(text: string): string[] {
  return text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}
