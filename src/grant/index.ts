// The grant owner's public surface (grants, authorization codes, access requests): what other folders may use of
// src/grant/, and the only way in. Plain functions and records, each store call on the `sql` it is given so it can
// join the caller's transaction; its SQL (./queries/) stays inside; the GrantService is for the internal port.
export { createAccessRequests, expireDueAccessRequests, type AccessRequests } from "./access-requests.js";
export { approvedStoreIds } from "./approved-access.js";
export { createAuthorization, type Authorization, type Decision, type ValidAuthorization } from "./authorization.js";
export { pushedRequestSeconds, requestUriPrefix, type PushedParameters } from "./pushed-requests.js";
export { consumeCode, findCode, type AuthorizationCode, type CodeCheck } from "./code-store.js";
export { createConnections, type Connections } from "./connections.js";
export {
  ensureLiveGrant,
  findGrant,
  findLiveGrant,
  findMerchantGrantedTo,
  revokeGrant,
  type Grant,
  type GrantEnvironment,
} from "./grant-store.js";
export { s256 } from "./pkce.js";
export { createSandboxGrants } from "./sandbox-grants.js";
export {
  createGrantOwner,
  createGrantService,
  describeAccessRequest,
  type GrantOwner,
  type GrantServiceImpl,
} from "./service.js";
