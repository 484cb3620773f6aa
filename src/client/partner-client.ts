// createPartnerClient: one app's client of the partner API. It connects merchants (OAuth authorization code, or
// sandbox client credentials), keeps their tokens as the spec asks, calls the business routes with the spec's
// retry table, and shows the app's rate-limit budget.

import {
  createAuthorizationRequest,
  createPushedAuthorizationRequest,
  validateCallback,
  type PendingAuthorization,
} from "./authorization.js";
import { createBusinessRoutes, type BusinessRoutes } from "./business-routes.js";
import { createConnections } from "./connections.js";
import { createDpopSigner } from "./dpop.js";
import { clientError } from "./errors.js";
import { realSleep, systemClientClock, type PartnerClientOptions } from "./options.js";
import { createRateBudgetTracker, type RateBudget } from "./rate-budget.js";
import { defaultRetryLimits } from "./retry-policy.js";
import { createTokenEndpoint, type TokenEndpoint } from "./token-endpoint.js";
import { createMemoryTokenStore, type MerchantTokens } from "./token-store.js";
import { createTransport } from "./transport.js";
import { createWebhookEndpoints, type WebhookEndpoints } from "./webhook-endpoints.js";

/** A connected merchant, as the token response described it. */
export interface Connection {
  merchantId: number;
  scope: string;
  apiBaseUrl: string;
}

/** The business routes of one merchant reached with its access token (Bearer, or DPoP with a proof per call). */
export interface MerchantClient extends BusinessRoutes {
  merchantId: number;
  /** The merchant's current access token (renewed first when within the margin of `exp`); for calls this client lacks. */
  accessToken(): Promise<string>;
}

/** The business routes of one company reached with the app's API key; `companyId` is sent on every call. */
export interface CompanyClient extends BusinessRoutes {
  companyId: number;
}

export interface PartnerClient {
  /**
   * A new authorize URL with `state` and PKCE S256; keep the result server side until the callback. With
   * `pushedAuthorization`, the parameters are pushed first (POST /v1/oauth/par) and the URL names the request_uri.
   */
  startAuthorization(options?: { scope?: string }): Promise<PendingAuthorization>;
  /**
   * Validates the callback (`error` first, then `code`; `state` compared on both paths), exchanges the code and
   * stores the tokens. Throws AuthorizationCallbackError (`access_denied`, `client.state_mismatch`, ...) or the
   * token endpoint's PartnerApiError.
   */
  completeAuthorization(callback: string | URL | URLSearchParams, pending: PendingAuthorization): Promise<Connection>;
  /** Sandbox: mints a token at POST /v1/token for one of the organization's sandbox merchants and stores it. */
  connectSandbox(merchantId: number): Promise<Connection>;
  /** A connected merchant's routes. Calls fail with `client.not_connected` until the merchant is connected. */
  merchant(merchantId: number): MerchantClient;
  /** A company's routes with the API key (ADSR). */
  company(companyId: number): CompanyClient;
  /** Revokes the merchant's refresh token; the merchant must connect again to be called. */
  disconnect(merchantId: number): Promise<void>;
  /** The last X-RateLimit-* values the server sent for this app (a client is one app's credentials). */
  budget(): RateBudget | undefined;
  /** The raw token endpoints, for what the helpers above do not cover. */
  tokens: TokenEndpoint;
  /** The app's webhook endpoints in its credentials' environment (verify what arrives with `webhooks.verify`). */
  webhookEndpoints: WebhookEndpoints;
}

export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  const clock = options.clock ?? systemClientClock;
  const sleep = options.sleep ?? realSleep;
  const budget = createRateBudgetTracker(clock, sleep);
  const dpop = options.dpop === undefined ? undefined : createDpopSigner(options.dpop, clock);
  const transport = createTransport({
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    clock,
    sleep,
    random: options.random ?? Math.random,
    limits: { ...defaultRetryLimits, ...options.retry },
    budget,
    acceptLanguage: options.acceptLanguage,
    onRetry: options.onRetry,
    dpop,
  });
  const tokens = createTokenEndpoint({
    transport,
    baseUrl: options.baseUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    acceptLanguage: options.acceptLanguage,
    dpop: dpop !== undefined,
  });
  const connections = createConnections({
    store: options.tokenStore ?? createMemoryTokenStore(),
    tokens,
    clock,
    renewBeforeMs: (options.renewBeforeSeconds ?? 60) * 1000,
    dpopThumbprint: dpop?.thumbprint,
  });
  const connection = (entry: MerchantTokens): Connection => ({
    merchantId: entry.merchantId,
    scope: entry.scope,
    apiBaseUrl: entry.apiBaseUrl,
  });
  const required = <K extends "authUrl" | "redirectUri" | "clientId" | "apiKey">(name: K): string => {
    const value = options[name];
    if (!value) throw clientError("client.misconfigured", `the client needs the ${name} option for this`);
    return value;
  };

  return {
    startAuthorization: async (start = {}) => {
      const input = {
        authUrl: required("authUrl"),
        clientId: required("clientId"),
        redirectUri: required("redirectUri"),
        scope: start.scope,
      };
      return options.pushedAuthorization
        ? createPushedAuthorizationRequest(input, (parameters) => tokens.pushAuthorization(parameters))
        : createAuthorizationRequest(input);
    },
    async completeAuthorization(callback, pending) {
      // The issuer is the API's base URL with its trailing slash (the metadata's `issuer`, BASE_URL), which the
      // server's redirects name as `iss` (docs/decisions.md, "RFC 9207 `iss` in authorization responses").
      const { code, merchantId } = validateCallback(callback, pending.state, options.baseUrl.replace(/\/+$/, "") + "/");
      const response = await tokens.exchangeCode({
        code,
        redirectUri: pending.redirectUri,
        codeVerifier: pending.codeVerifier,
      });
      // The token response names the merchant authoritatively; the callback's merchant_id is what the browser said.
      const connected = typeof response.merchant_id === "number" ? response.merchant_id : merchantId;
      return connection(await connections.connect(response, "oauth", connected));
    },
    async connectSandbox(merchantId) {
      const response = await tokens.mintSandbox(merchantId);
      return connection(await connections.connect(response, "sandbox", merchantId));
    },
    merchant(merchantId) {
      return {
        merchantId,
        accessToken: async () => (await connections.current(merchantId)).accessToken,
        ...createBusinessRoutes({ transport, auth: connections.authenticator(merchantId) }),
      };
    },
    company(companyId) {
      const apiKey = required("apiKey");
      const apiBaseUrl = new URL("/v1/", options.baseUrl).toString();
      return {
        companyId,
        ...createBusinessRoutes({
          transport,
          companyId,
          auth: { credentials: async () => ({ headers: { "x-api-key": apiKey }, apiBaseUrl }) },
        }),
      };
    },
    disconnect: (merchantId) => connections.disconnect(merchantId),
    budget: () => budget.current(),
    tokens,
    webhookEndpoints: createWebhookEndpoints({
      transport,
      baseUrl: options.baseUrl,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      acceptLanguage: options.acceptLanguage,
    }),
  };
}
