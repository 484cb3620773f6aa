// Each merchant's tokens, held the way the spec asks (Authentication 9): one access token per merchant, reused
// until it is within ~60 s of `exp`; renewal serialised per merchant, so however many calls find the token
// expiring, one refresh is made and they all wait on it; the newest refresh token written to the store before the
// new access token is used (a store that fails stops the call, and the tokens wait, unused, for the store to take
// them); `invalid_grant` ends the connection for good. DPoP-bound tokens (token_type DPoP) are sent as
// `Authorization: DPoP` with a proof of the client's key; stored ones bound to another key end the connection too.

import { jwtExpiry } from "./encoding.js";
import { clientError, PartnerApiError, ReconnectRequiredError } from "./errors.js";
import type { ClientClock } from "./options.js";
import type { TokenEndpoint, TokenResponse } from "./token-endpoint.js";
import type { MerchantTokens, TokenStore } from "./token-store.js";
import type { Authenticator, Credentials } from "./transport.js";

export interface Connections {
  /** Stores the tokens of a fresh connection (code exchange or sandbox mint) and forgets any earlier end of it. */
  connect(response: TokenResponse, kind: MerchantTokens["kind"], merchantId: number): Promise<MerchantTokens>;
  /** The merchant's tokens, renewed first when the access token is within the renewal margin of `exp`. */
  current(merchantId: number): Promise<MerchantTokens>;
  /** Credentials for partner calls of one merchant; a 401 renews once through `renew`. */
  authenticator(merchantId: number): Authenticator;
  /** Revokes the merchant's refresh token (OAuth) and marks the connection finished. */
  disconnect(merchantId: number): Promise<void>;
}

export interface ConnectionsOptions {
  store: TokenStore;
  tokens: TokenEndpoint;
  clock: ClientClock;
  renewBeforeMs: number;
  /** The thumbprint of the client's DPoP key, when it has one. */
  dpopThumbprint?: (() => Promise<string>) | undefined;
}

export function createConnections(options: ConnectionsOptions): Connections {
  const { store, tokens, clock, renewBeforeMs } = options;
  /** The last tokens read or written per merchant: calls reuse them without a store round trip while fresh. */
  const cache = new Map<number, MerchantTokens>();
  /** Connections that ended with invalid_grant: every later call gets this error, and nothing is renewed. */
  const finished = new Map<number, ReconnectRequiredError>();
  /**
   * Tokens a renewal got whose `put` failed: never used, but kept so the next call saves them instead of refreshing
   * again. Refreshing again with the stored (rotated-out) token would work only inside the server's grace window;
   * after it the server sees reuse and revokes the connection.
   */
  const unsaved = new Map<number, MerchantTokens>();
  /** Per-merchant queue: the store read and the renewal run one at a time, so one refresh serves every waiter. */
  const queues = new Map<number, Promise<unknown>>();

  const isFresh = (entry: MerchantTokens) => entry.accessTokenExpiresAt - clock.now() > renewBeforeMs;

  function serialised<T>(merchantId: number, task: () => Promise<T>): Promise<T> {
    const previous = queues.get(merchantId) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(
      () => {},
      () => {},
    );
    queues.set(merchantId, settled);
    void settled.then(() => {
      if (queues.get(merchantId) === settled) queues.delete(merchantId);
    });
    return run;
  }

  async function entryOf(
    response: TokenResponse,
    kind: MerchantTokens["kind"],
    merchantId: number,
  ): Promise<MerchantTokens> {
    const bound = response.token_type.toLowerCase() === "dpop";
    if (bound && options.dpopThumbprint === undefined)
      throw clientError("client.misconfigured", "the server bound the tokens to a DPoP key this client does not hold");
    return {
      merchantId,
      kind,
      ...(bound ? { tokenType: "DPoP" as const, dpopJkt: await options.dpopThumbprint!() } : {}),
      accessToken: response.access_token,
      // The JWT's own `exp`; `expires_in` from now only if the token cannot be read.
      accessTokenExpiresAt: jwtExpiry(response.access_token) ?? clock.now() + response.expires_in * 1000,
      refreshToken: response.refresh_token,
      scope: response.scope,
      apiBaseUrl: response.api_base_url,
    };
  }

  async function persist(merchantId: number, entry: MerchantTokens): Promise<void> {
    try {
      await store.put(merchantId, entry);
    } catch (error) {
      cache.delete(merchantId);
      throw clientError(
        "client.token_store_failed",
        `the token store could not save merchant ${merchantId}'s tokens; they are not used`,
        error,
      );
    }
    cache.set(merchantId, entry);
  }

  /** Saves the tokens of a renewal; if the store fails they wait in `unsaved` for the next call to save them. */
  async function persistRenewal(merchantId: number, entry: MerchantTokens): Promise<void> {
    try {
      await persist(merchantId, entry);
      unsaved.delete(merchantId);
    } catch (error) {
      unsaved.set(merchantId, entry);
      throw error;
    }
  }

  const reconnectFromStore = (merchantId: number, code: string) =>
    new ReconnectRequiredError(merchantId, {
      code,
      status: 400,
      oauthError: "invalid_grant",
      message: `merchant ${merchantId} must connect again (${code})`,
      shape: "oauth",
    });

  /** Ends the connection: remembered here, and written to the store so other processes learn it too. */
  async function finish(stored: MerchantTokens, error: ReconnectRequiredError): Promise<never> {
    finished.set(stored.merchantId, error);
    cache.delete(stored.merchantId);
    unsaved.delete(stored.merchantId);
    // Best effort: the mark in this process already stops every renewal; the stored one informs the others.
    await store
      .put(stored.merchantId, { ...stored, refreshToken: undefined, reconnectRequired: error.code })
      .catch(() => {});
    throw error;
  }

  /** Tokens bound to a DPoP key this client does not hold are worth nothing here: the merchant connects again. */
  async function checkKey(stored: MerchantTokens): Promise<void> {
    if (stored.dpopJkt === undefined) return;
    const ours = options.dpopThumbprint ? await options.dpopThumbprint() : undefined;
    if (ours === stored.dpopJkt) return;
    await finish(
      stored,
      new ReconnectRequiredError(stored.merchantId, {
        code: "client.dpop_key_changed",
        status: 0,
        message: `merchant ${stored.merchantId}'s tokens are bound to another DPoP key than this client's; connect it again`,
        shape: "client",
      }),
    );
  }

  async function renew(stored: MerchantTokens): Promise<MerchantTokens> {
    const { merchantId } = stored;
    let response: TokenResponse;
    try {
      if (stored.kind === "sandbox") response = await tokens.mintSandbox(merchantId);
      else if (stored.refreshToken !== undefined) response = await tokens.refresh(stored.refreshToken);
      else throw clientError("client.not_connected", `merchant ${merchantId} has no refresh token; connect it again`);
    } catch (error) {
      if (error instanceof PartnerApiError && error.oauthError === "invalid_grant") {
        return finish(
          stored,
          new ReconnectRequiredError(merchantId, {
            code: error.code,
            status: error.status,
            message: error.message,
            params: { ...error.params },
            correlationId: error.correlationId,
            shape: error.shape,
            oauthError: error.oauthError,
            cause: error,
          }),
        );
      }
      throw error;
    }
    const next = await entryOf(response, stored.kind, merchantId);
    // Before the new access token is used anywhere: the presented refresh token is finished once rotated.
    await persistRenewal(merchantId, next);
    return next;
  }

  /** `stale`: the access token a 401 refused; renew unless the stored one is already another. */
  async function current(merchantId: number, stale?: string): Promise<MerchantTokens> {
    const ended = finished.get(merchantId);
    if (ended) throw ended;
    const cached = cache.get(merchantId);
    if (cached && isFresh(cached) && cached.accessToken !== stale) return cached;
    return serialised(merchantId, async () => {
      const ended = finished.get(merchantId);
      if (ended) throw ended;
      // A renewal whose tokens the store refused: save them now (no second refresh), or fail again.
      const pending = unsaved.get(merchantId);
      if (pending !== undefined) await persistRenewal(merchantId, pending);
      const stored = await store.get(merchantId);
      if (stored === undefined) {
        cache.delete(merchantId);
        throw clientError("client.not_connected", `no tokens are stored for merchant ${merchantId}; connect it first`);
      }
      if (stored.reconnectRequired !== undefined) {
        const error = reconnectFromStore(merchantId, stored.reconnectRequired);
        finished.set(merchantId, error);
        throw error;
      }
      await checkKey(stored);
      if (isFresh(stored) && stored.accessToken !== stale) {
        cache.set(merchantId, stored);
        return stored;
      }
      return renew(stored);
    });
  }

  return {
    async connect(response, kind, merchantId) {
      return serialised(merchantId, async () => {
        const entry = await entryOf(response, kind, merchantId);
        await persist(merchantId, entry);
        finished.delete(merchantId);
        unsaved.delete(merchantId);
        return entry;
      });
    },
    current: (merchantId) => current(merchantId),
    authenticator(merchantId) {
      const credentials = (entry: MerchantTokens): Credentials =>
        entry.tokenType === "DPoP"
          ? {
              headers: { authorization: `DPoP ${entry.accessToken}` },
              apiBaseUrl: entry.apiBaseUrl,
              dpopAccessToken: entry.accessToken,
            }
          : { headers: { authorization: `Bearer ${entry.accessToken}` }, apiBaseUrl: entry.apiBaseUrl };
      return {
        credentials: async () => credentials(await current(merchantId)),
        renew: async (stale) => {
          await current(merchantId, stale.headers["authorization"]?.replace(/^(Bearer|DPoP) /, ""));
        },
      };
    },
    async disconnect(merchantId) {
      await serialised(merchantId, async () => {
        const stored = await store.get(merchantId);
        if (stored === undefined) return;
        if (stored.refreshToken !== undefined) await tokens.revoke(stored.refreshToken);
        const error = new ReconnectRequiredError(merchantId, {
          code: "oauth.grant_revoked",
          status: 400,
          oauthError: "invalid_grant",
          message: `merchant ${merchantId} was disconnected by this app; connect it again`,
          shape: "client",
        });
        finished.set(merchantId, error);
        cache.delete(merchantId);
        unsaved.delete(merchantId);
        await store.put(merchantId, { ...stored, refreshToken: undefined, reconnectRequired: error.code });
      });
    },
  };
}
