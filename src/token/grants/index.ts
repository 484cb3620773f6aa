// The grant types of POST /v1/oauth/token, by grant_type value.
import { authorizationCode } from "./authorization-code.js";
import { clientCredentials } from "./client-credentials.js";
import type { GrantType } from "./grant-type.js";
import { refreshToken } from "./refresh-token.js";

export type { GrantContext, GrantType, TokenParameter } from "./grant-type.js";

/** Every grant the endpoint knows; any other grant_type is oauth.unsupported_grant_type. */
export const grantTypes: ReadonlyMap<string, GrantType> = new Map(
  [authorizationCode, refreshToken, clientCredentials].map((grant) => [grant.grantType, grant]),
);
