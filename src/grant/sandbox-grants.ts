// The automatic sandbox grants, as the CredentialService asks for them (it creates the apps and sandbox merchants;
// the grant rows are this owner's). Injected by the composition root.
import type { SandboxGrants } from "../credential/index.js";
import { createGrantQueries } from "./queries/grant-queries.js";

/** The sandbox grants over the grant queries, on whichever `sql` (pool or transaction) each call is given. */
export function createSandboxGrants(): SandboxGrants {
  return {
    grantMerchantsToApp: (sql, appId, organizationId, now) =>
      createGrantQueries(sql).grantSandboxMerchantsToApp(appId, organizationId, now),
    grantAppsToMerchant: (sql, companyId, organizationId, now) =>
      createGrantQueries(sql).grantSandboxAppsToMerchant(companyId, organizationId, now),
  };
}
