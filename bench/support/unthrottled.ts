// Service settings for a benchmark: every limit and throttle far above what the load generator can reach, so the
// figures measure the work, not the refusals.
export function unthrottled(): Record<string, string> {
  const high = "1000000000";
  return {
    PARTNER_RATE_LIMIT: high,
    SANDBOX_TOKEN_RATE_LIMIT: high,
    OAUTH_TOKEN_CLIENT_RATE_LIMIT: high,
    OAUTH_TOKEN_ADDRESS_RATE_LIMIT: high,
    CONSENT_SIGN_IN_LIMIT: high,
  };
}
