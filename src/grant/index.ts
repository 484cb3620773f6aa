// The grant owner's public surface (GrantService: grants, authorization codes, access requests): what other
// folders may use of src/grant/, and the only way in.
export { createAccessRequests, expireDueAccessRequests } from "./access-requests.js";
export { createAuthorization, type Authorization, type ValidAuthorization } from "./authorization.js";
export { createConnections, type Connections } from "./connections.js";
export { s256 } from "./pkce.js";
export { createAccessRequestQueries } from "./queries/access-request-queries.js";
export { createCodeQueries, type CodeRow } from "./queries/code-queries.js";
export { createGrantQueries } from "./queries/grant-queries.js";
export { createSandboxGrants } from "./sandbox-grants.js";
export { createGrantService } from "./service.js";
