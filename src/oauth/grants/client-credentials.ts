// grant_type=client_credentials at /v1/oauth/token (sandbox credentials only): not built yet. It belongs with
// POST /v1/token (issue 6); until then it answers server.unimplemented, never a fake token and never
// unsupported_grant_type (the spec says the grant exists).
import { serviceError } from "../../errors/index.js";
import type { GrantType } from "./grant-type.js";

export const grantType = "client_credentials";
export const parameters = [] as const;

export const handle: GrantType["handle"] = async (_request, _client, context) => {
  throw serviceError(context.domain, "server.unimplemented");
};

export const clientCredentials: GrantType = { grantType, parameters, handle };
