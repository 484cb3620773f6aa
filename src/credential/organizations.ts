// CredentialService, organizations: a minimal record (membership and roles come with the console).
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import { invalid, type CredentialContext } from "./credential-context.js";

export function createOrganizationHandlers(
  credential: CredentialContext,
): Pick<ServiceImpl<typeof CredentialService>, "createOrganization"> {
  const { sql, now } = credential;
  return {
    async createOrganization(request) {
      const name = request.name.trim();
      if (!name) throw invalid("name");
      const row = await createOrganizationQueries(sql).insert(name, now());
      return { organization: { organizationId: BigInt(row.id), name: row.name } };
    },
  };
}
