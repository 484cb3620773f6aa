// TokenService: OAuth grants (src/token/token-endpoint.ts), pushed authorization requests (./pushed-authorization.ts),
// revocation, POST /v1/token (sandbox client
// credentials, ./sandbox-tokens.ts), the published JWKS, the authorization server metadata and signing-key rotation.
import { createSecretKey } from "node:crypto";
import type { ServiceImpl } from "@connectrpc/connect";
import type postgres from "postgres";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import { createTokenIssuer } from "./issuer.js";
import { clientAddressAllowed, type VerifyClient } from "./client-verifier.js";
import { authorizationServerMetadata } from "./metadata.js";
import { createRevocation } from "./revocation.js";
import { successorKey } from "./refresh-token-secrets.js";
import { createTokenThrottle } from "./throttle.js";
import { createTokenEndpoint } from "./token-endpoint.js";
import { createClientAuthentication } from "./client-authentication.js";
import { createPushedAuthorization } from "./pushed-authorization.js";
import { createAuthorization } from "../grant/index.js";
import { createSandboxMinter } from "./sandbox-tokens.js";
import { createDpopVerifier } from "./dpop-proof.js";
import { createDpopNonces, dpopNonceKey } from "./dpop-nonces.js";
import { createTokenRequestDpop } from "./dpop-at-token-endpoint.js";
import type { KeyValueStore } from "../storage/key-value.js";
import type { SigningKeyStore } from "./signing-keys.js";
import { callerInfoKey } from "../runtime/caller-context.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { serviceError } from "../errors/index.js";

export interface TokenServiceDeps {
  /** The control database. */
  sql: postgres.Sql;
  /** Where the token endpoint's throttles count (Redis in production). */
  keyValue: KeyValueStore;
  keys: SigningKeyStore;
  verifyClient: VerifyClient;
  /** The key-encryption key; refresh-token successors are derived from a key made from it. */
  kek: Buffer;
}

export function createTokenService(context: ServiceContext, deps: TokenServiceDeps): ServiceImpl<typeof TokenService> {
  const { config, clock, ids, logger, metrics } = context;
  const domain = TokenService.typeName;
  const issuer = createTokenIssuer({ keys: deps.keys, config, clock, ids });
  const sandbox = createSandboxMinter({
    sql: deps.sql,
    config,
    clock,
    logger,
    issuer,
    keyValue: deps.keyValue,
    domain,
    metrics,
  });
  const throttle = createTokenThrottle({ kv: deps.keyValue, clock, logger, config, domain, metrics });
  const clients = createClientAuthentication({ verifyClient: deps.verifyClient, throttle, domain });
  const pushedAuthorization = createPushedAuthorization({
    clients,
    authorization: createAuthorization({ sql: deps.sql, config, clock, ids, logger }),
    domain,
  });
  // DPoP proofs' jti are remembered in the shared store (one SET NX each), nonces made from the KEK (DPOP_NONCES).
  const nonces = config.dpop.nonces ? createDpopNonces({ key: dpopNonceKey(deps.kek), clock }) : undefined;
  const dpop = createTokenRequestDpop({
    verifier: createDpopVerifier({ store: deps.keyValue, clock, nonces }),
    nonces,
    domain,
    logger,
  });
  /** The public URL a proof names: the base URL and the path the front saw (an internal caller: `path`). */
  const publicUrl = (seenPath: string | undefined, path: string) =>
    `${config.urls.base}${(seenPath ?? path).replace(/^\//, "")}`;
  const endpoint = createTokenEndpoint({
    grants: {
      sql: deps.sql,
      config,
      clock,
      ids,
      logger,
      issuer,
      successorKey: createSecretKey(successorKey(deps.kek)),
      domain,
      sandbox,
      metrics,
    },
    clients,
    throttle,
    dpop,
  });
  const revocation = createRevocation({
    sql: deps.sql,
    clock,
    logger,
    verifyClient: deps.verifyClient,
    domain,
    metrics,
  });
  return {
    async exchangeToken(request, handlerContext) {
      // The caller's address as the front saw it; internal callers without one share a single throttle bucket.
      const caller = handlerContext.values.get(callerInfoKey);
      const proof = {
        header: handlerContext.requestHeader.get("dpop"),
        url: publicUrl(caller?.path, "/v1/oauth/token"),
      };
      const response = await endpoint.exchange(request, caller?.clientAddress ?? "internal", proof);
      // Only a grant_type the endpoint knows gets this far: the label's values are bounded.
      metrics?.tokensMinted.inc({ grant_type: request.grantType });
      return response;
    },
    async pushAuthorizationRequest(request, handlerContext) {
      const caller = handlerContext.values.get(callerInfoKey);
      // RFC 9449 section 10.1: a DPoP proof at PAR binds the code as dpop_jkt does; verified once the client is known.
      const proofKey = () =>
        dpop.keyOf(handlerContext.requestHeader.get("dpop"), publicUrl(caller?.path, "/v1/oauth/par"), "oauth");
      return pushedAuthorization.push(request, caller?.clientAddress ?? "internal", proofKey);
    },
    async revokeToken(request, handlerContext) {
      const caller = handlerContext.values.get(callerInfoKey);
      return revocation.revoke(request, caller?.clientAddress ?? "internal");
    },
    /**
     * POST /v1/token, in named steps: throttle the source address, refuse another grant_type, require the client's
     * id and secret, authenticate it, check its IP allowlist, mint (src/token/sandbox-tokens.ts). Exactly the spec's five fields.
     */
    async mintSandboxToken(request, handlerContext) {
      const caller = handlerContext.values.get(callerInfoKey);
      await sandbox.admit(caller?.clientAddress ?? "internal");
      if (request.grantType !== undefined && request.grantType !== "client_credentials") {
        throw serviceError(domain, "developer.unsupported_grant_type", { grantType: request.grantType });
      }
      const missing = [!request.clientId && "client_id", !request.clientSecret && "client_secret"].filter(Boolean);
      if (missing.length > 0) throw serviceError(domain, "developer.invalid_request", { fields: missing.join(", ") });
      const client = await deps.verifyClient(request.clientId, request.clientSecret);
      // The credential's IP allowlist, as on partner routes; an internal caller has no address and fails closed.
      if (!clientAddressAllowed(client, caller?.clientAddress ?? "internal"))
        throw serviceError(domain, "developer.ip_denied");
      const dpopHeader = handlerContext.requestHeader.get("dpop");
      const dpopJkt = await dpop.keyOf(dpopHeader, publicUrl(caller?.path, "/v1/token"), "developer");
      if (client.requireDpop && dpopJkt === undefined) throw serviceError(domain, "developer.dpop_required");
      const merchantId = request.merchantId === undefined ? undefined : Number(request.merchantId);
      const minted = await sandbox.mint(client, merchantId, dpopJkt);
      // Exactly the common fields: POST /v1/token has no refresh_token, refresh_token_expires_in or merchant_id.
      metrics?.tokensMinted.inc({ grant_type: "sandbox_client_credentials" });
      return issuer.commonFields(minted.accessToken, client, dpopJkt);
    },
    async getJwks() {
      return { keys: await deps.keys.published() };
    },
    async getAuthorizationServerMetadata() {
      return authorizationServerMetadata(config);
    },
    async rotateSigningKey() {
      const rotation = await deps.keys.rotate();
      return {
        kid: rotation.kid,
        publishAtMs: BigInt(rotation.publishAt.getTime()),
        signFromMs: BigInt(rotation.signFrom.getTime()),
        previousKid: rotation.previousKid ?? "",
        previousRetireAtMs: BigInt(rotation.previousRetireAt?.getTime() ?? 0),
      };
    },
  };
}
