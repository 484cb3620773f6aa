// One HTTP exchange with the retry table around it: every partner call and every token call goes through `send`.
// The steps of an attempt: wait while the app's rate window is closed, get credentials (which may renew the
// access token), fetch, record the X-RateLimit-* budget, return the JSON of a success, or read the error and ask
// the retry policy what to do.

import { asksForNonce, type DpopSigner } from "./dpop.js";
import { clientError, errorFromBody, type PartnerApiError } from "./errors.js";
import type { ClientClock, RetryEvent } from "./options.js";
import type { RateBudgetTracker } from "./rate-budget.js";
import {
  afterDecision,
  decideRetry,
  initialRetryState,
  type AttemptOutcome,
  type RetryLimits,
} from "./retry-policy.js";

/** What authenticates one attempt, and where partner URLs start. */
export interface Credentials {
  headers: Record<string, string>;
  /** Base of relative paths (api_base_url, trailing slash). */
  apiBaseUrl: string;
  /** A DPoP-bound access token (sent as `Authorization: DPoP`): each attempt carries a proof with its `ath`. */
  dpopAccessToken?: string | undefined;
}

/** The source of credentials for a call: a merchant's bearer token or an API key. */
export interface Authenticator {
  /** Credentials for the next attempt (a bearer source renews here when the token is within ~60 s of `exp`). */
  credentials(): Promise<Credentials>;
  /** After a 401: get a fresh access token, unless another call already replaced `stale`. Absent for API keys. */
  renew?(stale: Credentials): Promise<void>;
}

export interface HttpCall {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** A path relative to the credentials' api_base_url (`items`), or an absolute URL (token endpoints). */
  path: string;
  query?: Record<string, string | number | undefined> | undefined;
  /** Sent as JSON. */
  body?: Record<string, unknown> | undefined;
  /** A non-idempotent call: POST and PATCH business writes, the code exchange. */
  write: boolean;
  /** Partner calls are gated by the app's rate window and feed the budget view; token calls are not. */
  partner: boolean;
  auth?: Authenticator | undefined;
  acceptLanguage?: string | undefined;
  signal?: AbortSignal | undefined;
  /** A token endpoint call of a DPoP client: each attempt carries a proof (no `ath`). */
  dpop?: boolean | undefined;
}

export interface Transport {
  send(call: HttpCall): Promise<Record<string, unknown>>;
}

export interface TransportOptions {
  fetch: typeof fetch;
  clock: ClientClock;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  limits: RetryLimits;
  budget: RateBudgetTracker;
  acceptLanguage?: string | undefined;
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** The DPoP key of a client configured with `dpop`: proofs for token calls and for DPoP-bound tokens. */
  dpop?: DpopSigner | undefined;
}

/** A proof's nonce asked for again at most this often per call (a server rotating nonces faster is broken). */
const maxNonceRetries = 2;

const noCredentials = async (): Promise<Credentials> => ({ headers: {}, apiBaseUrl: "http://invalid.invalid/" });

const seconds = (value: unknown): number | undefined => {
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^\d+$/.test(value.trim())
        ? Number(value)
        : undefined;
  return number !== undefined && Number.isFinite(number) ? number : undefined;
};

function urlOf(call: HttpCall, credentials: Credentials): URL {
  const url = new URL(call.path, credentials.apiBaseUrl);
  for (const [name, value] of Object.entries(call.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What one attempt came to: the answer's JSON object, or what failed (for the retry decision) and the error, and
 * whether the refusal asked for the DPoP proof again with the server's nonce.
 */
type Attempted =
  | { body: Record<string, unknown> }
  | { outcome: AttemptOutcome; failure: PartnerApiError; nonceAsked?: boolean };

/** One request of a call: sent with the credentials of this attempt, its answer read. */
async function attempt(
  options: TransportOptions,
  call: HttpCall,
  url: URL,
  credentials: Credentials,
): Promise<Attempted> {
  const { budget } = options;
  const headers: Record<string, string> = { accept: "application/json", ...credentials.headers };
  const language = call.acceptLanguage ?? options.acceptLanguage;
  if (language !== undefined) headers["accept-language"] = language;
  if (call.body !== undefined) headers["content-type"] = "application/json";
  const signer = options.dpop;
  const proven = signer !== undefined && (call.dpop === true || credentials.dpopAccessToken !== undefined);
  if (proven) headers["dpop"] = await signer.proof(call.method, url, credentials.dpopAccessToken);
  else if (credentials.dpopAccessToken !== undefined)
    throw clientError("client.misconfigured", "a DPoP-bound token needs the dpop option (its key) to be used");

  let response: Response | undefined;
  let networkError: unknown;
  try {
    response = await options.fetch(url, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: call.signal,
      redirect: "manual",
    });
  } catch (error) {
    // An abort is the caller's decision, not a network failure: never retried.
    if (call.signal?.aborted) throw error;
    networkError = error;
  }

  let outcome: AttemptOutcome;
  let failure: PartnerApiError;
  if (response === undefined) {
    outcome = { kind: "network" };
    failure = clientError(
      "client.network",
      `no response from ${url.origin}: ${networkError instanceof Error ? networkError.message : String(networkError)}`,
      networkError,
    );
  } else {
    if (call.partner) budget.record(response.headers);
    if (proven) signer.observe(url, response.headers);
    const body = await readJson(response);
    if (response.ok) {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw clientError(
          "client.bad_response",
          `${call.method} ${url.pathname} answered ${response.status} without a JSON object`,
        );
      }
      return { body: body as Record<string, unknown> };
    }
    failure = errorFromBody(response.status, response.headers, body);
    const reset = seconds(response.headers.get("x-ratelimit-reset"));
    outcome = {
      kind: "response",
      status: response.status,
      code: failure.code,
      resetAtMs: reset === undefined ? undefined : reset * 1000,
      retryAfterSeconds: seconds(response.headers.get("retry-after")) ?? seconds(failure.params["retryAfter"]),
    };
    if (proven && asksForNonce(response.headers, failure.oauthError, failure.code))
      return { outcome, failure, nonceAsked: true };
  }
  return { outcome, failure };
}

export function createTransport(options: TransportOptions): Transport {
  const { clock, sleep, budget, limits } = options;

  return {
    async send(call) {
      const auth = call.auth ?? { credentials: noCredentials };
      const state = initialRetryState(call.write, auth.renew !== undefined);
      let nonceRetries = 0;
      for (;;) {
        if (call.partner) await budget.waitForOpenWindow();
        call.signal?.throwIfAborted();
        const credentials = await auth.credentials();
        const url = urlOf(call, credentials);
        const result = await attempt(options, call, url, credentials);
        if ("body" in result) return result.body;
        const { outcome, failure } = result;
        // RFC 9449 section 8: the server refused the proof before doing anything else; the next proof carries the
        // nonce it sent. Safe for a write too (a code exchange is not used up by a refused proof).
        if (result.nonceAsked && nonceRetries < maxNonceRetries) {
          nonceRetries += 1;
          continue;
        }

        const decision = decideRetry(outcome, state, clock.now(), options.random, limits);
        afterDecision(state, decision);
        if (decision.action === "fail") throw failure;
        options.onRetry?.({
          method: call.method,
          url: url.toString(),
          reason: decision.action === "renew" ? "renew" : decision.reason,
          waitMs: decision.action === "renew" ? 0 : decision.ms,
          status: failure.status,
          code: failure.code,
        });
        if (decision.action === "renew") {
          await auth.renew!(credentials);
        } else if (decision.reason === "rate_limit" && call.partner) {
          // The window is the app's: every call of this client waits for it, not only this one.
          budget.closeUntil(clock.now() + decision.ms);
        } else {
          await sleep(decision.ms);
        }
      }
    },
  };
}
