// The sites' sessions live in the key-value store (Redis when configured). When it fails, a site answers 503 with
// Retry-After rather than sign anyone in unthrottled, or keep sessions in one process a load balancer may not route
// back to (docs/decisions.md, "Consent site").

/**
 * Retry-After of the 503 page while the session store (Redis) is away: the client reconnects within about a second
 * of Redis returning (src/storage/key-value.ts), so a few seconds is an honest first retry.
 */
export const storeRetryAfterSeconds = 5;

/** The session store or a throttle kept beside it failed (Redis unreachable or not answering). */
export class SessionStoreUnavailable extends Error {
  constructor(cause: unknown) {
    super("a site's session store is unavailable", { cause });
  }
}

/** Runs a call on the key-value store; any failure of it becomes SessionStoreUnavailable. */
export async function onStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    throw new SessionStoreUnavailable(cause);
  }
}
