// The credential owner's public surface (CredentialService: apps, credentials, organizations, the merchant
// directory): what other folders may use of src/credential/, and the only way in.
export { addressAllowed } from "./ip-allowlist.js";
export { defaultPasswordHashCost, hashPassword, unknownPasswordHash, verifyPassword } from "./passwords.js";
export { environmentName, productName, type CredentialEnvironment, type Product } from "./products.js";
export { createAppQueries, type AppRow } from "./queries/app-queries.js";
export { createCredentialQueries } from "./queries/credential-queries.js";
export { createMerchantQueries, type MerchantRow } from "./queries/merchant-queries.js";
export { createOrganizationQueries } from "./queries/organization-queries.js";
export type { SandboxGrants } from "./sandbox-grants.js";
export { allScopes, scopesForProduct } from "./scopes.js";
export { clientIdEnvironment, hashesEqual, hashSecret, secretBytes } from "./secrets.js";
export { createCredentialService } from "./service.js";
