// The credential owner's public surface (apps, credentials, organizations, the merchant directory): what other
// folders may use of src/credential/, and the only way in. Plain functions and records: the verifications
// (`Credentials`, one instance per process for its caches) and the directory reads, each on the `sql` it is given.
// Its SQL (./queries/) stays inside; the CredentialService is for the internal port and the composition root.
export {
  appIdsOfOrganization,
  findApp,
  findClient,
  findOrganization,
  insertOrganization,
  lockApp,
  redirectUrisOfApp,
  type App,
  type Organization,
  type RegisteredClient,
} from "./app-directory.js";
export { describeNewApiKey } from "./api-key-handlers.js";
export { appChangeOf, describeApp, describeClient, newAppOf } from "./app-handlers.js";
export { describeProductionClient, describeRotatedSecret } from "./client-credential-handlers.js";
export { describeMerchant } from "./credential-context.js";
export { addressAllowed } from "./ip-allowlist.js";
export {
  findMerchant,
  findMerchantUser,
  findMerchantUserByEmail,
  listSandboxMerchants,
  type Merchant,
  type MerchantUser,
} from "./merchant-directory.js";
export { defaultPasswordHashCost, hashPassword, unknownPasswordHash, verifyPassword } from "./passwords.js";
export { describeLogin } from "./merchant-handlers.js";
export { environmentEnum, requestedEnvironment, type CredentialEnvironment, type Product } from "./products.js";
export type { SandboxGrants } from "./sandbox-grants.js";
export { allScopes, scopesForProduct } from "./scopes.js";
export { clientIdEnvironment, hashesEqual, hashSecret, secretBytes } from "./secrets.js";
export {
  createCredentialOwner,
  createCredentialService,
  credentialsOf,
  type CredentialOwner,
  type Credentials,
  type CredentialServiceImpl,
} from "./service.js";
export type { VerifiedApp, VerifiedClient, VerifiedKey } from "./verified.js";
