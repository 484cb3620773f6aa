// POST /v1/oauth/par (RFC 9126) in named steps: throttle the source address, require the client's id and secret,
// authenticate the client exactly as the token endpoint does (./client-authentication.ts), check the parameters as
// the authorization endpoint checks them and store them (src/grant/pushed-requests.ts), answer the request_uri.
import type {
  PushAuthorizationRequestRequest,
  PushAuthorizationRequestResponse,
} from "../../gen/partnerapi/v1/token_service_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { PushAuthorizationRequestResponseSchema } from "../../gen/partnerapi/v1/token_service_pb.js";
import type { Authorization, PushedParameters } from "../grant/index.js";
import { serviceError } from "../errors/index.js";
import type { ClientAuthentication } from "./client-authentication.js";

export interface PushedAuthorizationDeps {
  clients: ClientAuthentication;
  authorization: Pick<Authorization, "push">;
  domain: string;
}

/** The authorization parameters of the request, as sent (an empty field was not sent). */
function parametersOf(request: PushAuthorizationRequestRequest): PushedParameters {
  const sent: Record<string, string> = {
    response_type: request.responseType,
    redirect_uri: request.redirectUri,
    state: request.state,
    scope: request.scope,
    code_challenge: request.codeChallenge,
    code_challenge_method: request.codeChallengeMethod,
    response_mode: request.responseMode,
    dpop_jkt: request.dpopJkt,
  };
  return Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== ""));
}

export function createPushedAuthorization(deps: PushedAuthorizationDeps) {
  const { domain } = deps;
  return {
    async push(
      request: PushAuthorizationRequestRequest,
      clientAddress: string,
      /** The thumbprint of a DPoP proof's key sent with the push (verified when called), if any. */
      proofKey: () => Promise<string | undefined> = async () => undefined,
    ): Promise<MessageInitShape<typeof PushAuthorizationRequestResponseSchema>> {
      await deps.clients.admitAddress(clientAddress);
      const missing = deps.clients.missingCredentials(request.clientId, request.clientSecret);
      if (missing.length > 0) throw serviceError(domain, "oauth.invalid_request", { fields: missing.join(", ") });
      const client = await deps.clients.authenticate(request.clientId, request.clientSecret, clientAddress);
      // RFC 9449 section 10.1: a proof and a dpop_jkt must name the same key; either alone binds the code to it.
      const proven = await proofKey();
      if (proven !== undefined && request.dpopJkt !== "" && request.dpopJkt !== proven)
        throw serviceError(domain, "oauth.dpop_key_mismatch");
      const parameters = parametersOf(request);
      if (proven !== undefined) parameters["dpop_jkt"] = proven;
      const pushed = await deps.authorization.push(client.clientId, parameters);
      if (!pushed.ok) {
        // At the authorization endpoint an unregistered redirect_uri is a page of its own; here it is a malformed
        // request of an authenticated client (RFC 9126 section 2.3: invalid_request), not a failed grant.
        if (pushed.code === "oauth.redirect_uri_mismatch")
          throw serviceError(domain, "oauth.invalid_request", { fields: "redirect_uri" });
        throw serviceError(domain, pushed.code, pushed.fields ? { fields: pushed.fields } : {});
      }
      return {
        requestUri: pushed.requestUri,
        expiresIn: pushed.expiresIn,
      } satisfies Partial<PushAuthorizationRequestResponse>;
    },
  };
}
