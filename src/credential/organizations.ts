// The credential owner's organizations: a minimal record (membership and roles come with the console).
import { createOrganizationQueries, type OrganizationRow } from "./queries/organization-queries.js";
import { invalid, type CredentialContext } from "./credential-context.js";

export interface Organizations {
  /** Makes an organization; developer.invalid_request naming `name` when it is blank. */
  createOrganization(name: string): Promise<OrganizationRow>;
}

export function createOrganizations(credential: CredentialContext): Organizations {
  const { sql, now } = credential;
  return {
    async createOrganization(given) {
      const name = given.trim();
      if (!name) throw invalid("name");
      return createOrganizationQueries(sql).insert(name, now());
    },
  };
}
