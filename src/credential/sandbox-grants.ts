// What the CredentialService needs of the grant owner: the automatic sandbox grants (spec: an organization's sandbox
// apps and sandbox merchants are granted to each other). Grants are not credential's data, and credential may not
// import grant, so the composition root injects an implementation (src/grant/sandbox-grants.ts).
import type { SqlClient } from "../storage/sql-client.js";

/** Each call writes on the caller's `sql`, so the grants commit or roll back with the caller's transaction. */
export interface SandboxGrants {
  /** Grants a new app every active sandbox merchant of its organization. */
  grantMerchantsToApp(sql: SqlClient, appId: string, organizationId: number, now: Date): Promise<void>;
  /** Grants every live app of the organization a new sandbox merchant. */
  grantAppsToMerchant(sql: SqlClient, companyId: number, organizationId: number, now: Date): Promise<void>;
}
