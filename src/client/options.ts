// Everything the client is configured with, in one documented object, and the defaults of the injectable parts.

import type { DpopOption } from "./dpop.js";
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
   * DPoP (RFC 9449): tokens bound to a key this client holds, so a copied token is useless without it. `true`: an
   * ES256 key pair made at the first use, in memory (tokens stored by a previous process are then refused with
   * `client.dpop_key_changed`); `{ keyPair }`: your key pair (keep it with the token store, e.g. a non-extractable
   * key in IndexedDB or a KMS-backed CryptoKey). Every token and PAR request, and every call with a bound token,
   * carries a proof; a server nonce (`use_dpop_nonce`) is picked up and the request sent again. Required when the
   * app is set to "require DPoP".
   */
  dpop?: DpopOption;
  /**
   * PAR (RFC 9126): `startAuthorization` pushes the request's parameters to POST /v1/oauth/par first and the
   * authorize URL carries only `client_id` and `request_uri`. Required when the app is set to "require pushed
   * authorization requests" (the client cannot read that setting); works for every app. Default false.
   */
  pushedAuthorization?: boolean;
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
