// Everything the client is configured with, in one documented object, and the defaults of the injectable parts.

import type { RetryLimits } from "./retry-policy.js";
import type { TokenStore } from "./token-store.js";

/** Milliseconds since the epoch; inject a manual clock in tests. */
export interface ClientClock {
  now(): number;
}

export interface PartnerClientOptions {
  /** {base_url} of the spec: scheme and host of the API (e.g. `https://api.example.com`), no path. */
  baseUrl: string;
  /** The app's client id (`lp_app_sb…` or `lp_app_pk…`); needed for OAuth and POST /v1/token. */
  clientId?: string;
  /** The app's client secret. Server side only: it never goes to a browser or a mobile bundle (spec, Authentication 3). */
  clientSecret?: string;
  /** {auth_url}: the consent site's host; needed to build authorize URLs. */
  authUrl?: string;
  /** The registered redirect URI, exactly as registered (matching is exact); needed for the OAuth flow. */
  redirectUri?: string;
  /** An ADSR API key (`lp_ak_…`), sent as `X-API-Key` by `company(companyId)` handles. */
  apiKey?: string;
  /**
   * Where each merchant's tokens live. Default: in memory (lost at exit, so merchants must reconnect after a
   * restart; give a persistent store in production). One store per app: keys are merchant ids.
   */
  tokenStore?: TokenStore;
  /** Sent as `Accept-Language` on every call unless a call names its own (selects the language of error messages). */
  acceptLanguage?: string;
  /** Renew an access token when it has fewer than this many seconds left (spec: about 60). Default 60. */
  renewBeforeSeconds?: number;
  /** The fetch to use. Default: the global fetch. */
  fetch?: typeof fetch;
  /** The clock renewals and rate-limit waits are measured on. Default: Date.now. */
  clock?: ClientClock;
  /** How the client waits between attempts. Default: setTimeout. Tests inject one that moves a manual clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). Default: Math.random. */
  random?: () => number;
  /** The retry table's numbers; the defaults are the spec's. */
  retry?: Partial<RetryLimits>;
  /**
   * Called once per retry or wait, with why: for logs and metrics. Not called for the first attempt.
   */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  url: string;
  reason: "rate_limit" | "provisioning" | "server" | "network" | "renew";
  /** The wait before the next attempt, in ms (0 for a renewal). */
  waitMs: number;
  /** The error that caused it. */
  status: number;
  code: string | undefined;
}

export const systemClientClock: ClientClock = { now: () => Date.now() };

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
