// The surface every grant module exports (node-oidc-provider's shape): its grant_type, the request parameters it
// requires, and its handler. The token endpoint (../token-endpoint.ts) checks the parameters before the handler runs.
import type { KeyObject } from "node:crypto";
import type postgres from "postgres";
import type { ExchangeTokenRequest } from "../../../gen/partnerapi/v1/token_service_pb.js";
import type { Config } from "../../config/config.js";
import type { ErrorCode } from "../../errors/index.js";
import type { Clock } from "../../runtime/clock.js";
import type { IdSource } from "../../runtime/ids.js";
import type { Logger } from "../../runtime/logger.js";
import type { Metrics } from "../../runtime/metrics.js";
import type { TokenIssuer, TokenResponse } from "../issuer.js";
import type { VerifiedClient } from "../client-verifier.js";
import type { SandboxMinter } from "../sandbox-tokens.js";

/** A request field of the token endpoint, by its protobuf name (the spec's wire name). */
export type TokenParameter = "code" | "redirect_uri" | "code_verifier" | "refresh_token" | "merchant_id";

/** The TypeScript property of each parameter on ExchangeTokenRequest. */
export const parameterFields = {
  code: "code",
  redirect_uri: "redirectUri",
  code_verifier: "codeVerifier",
  refresh_token: "refreshToken",
  merchant_id: "merchantId",
} as const satisfies Record<TokenParameter, keyof ExchangeTokenRequest>;

/** What every grant handler is given besides the request and the authenticated client. */
export interface GrantContext {
  sql: postgres.Sql;
  config: Config;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  issuer: TokenIssuer;
  /** HMAC key refresh-token successors are derived with (../refresh-token-secrets.ts). */
  successorKey: KeyObject;
  /** The raising service's full name. */
  domain: string;
  /** Sandbox client credentials (the client_credentials grant, shared with POST /v1/token). */
  sandbox: SandboxMinter;
  /** Counts reuse detections and the family revocations grants make; absent: not counted. */
  metrics?: Metrics;
}

export interface GrantType {
  /** The grant_type value this module handles. */
  readonly grantType: string;
  /** Parameters that must be present (non-empty); a missing one is oauth.invalid_request naming it. */
  readonly parameters: readonly TokenParameter[];
  /**
   * The parameter carrying the grant presented (RFC 6749 section 1.3: the code, the refresh token), on which
   * invalid_grant answers are counted and retries slowed; none for a grant without one (client credentials).
   */
  readonly credential?: "code" | "refresh_token";
  /**
   * Runs the grant; resolves with the token response or rejects with a catalogue error. `dpopJkt` is the key of the
   * request's verified DPoP proof (RFC 9449 section 5): the access token is bound to it, and a code or refresh
   * family bound to a key accepts only that key. Undefined: the request sent no proof.
   */
  handle(
    request: ExchangeTokenRequest,
    client: VerifiedClient,
    context: GrantContext,
    dpopJkt: string | undefined,
  ): Promise<TokenResponse>;
}

/** A grant's failure, decided inside a transaction and raised after it ended (committed or rolled back). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; code: ErrorCode };
