// CredentialService, organizations: the RPC over ./organizations.ts (protobuf in and out here only).
import type { ServiceImpl } from "@connectrpc/connect";
import type { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { Organizations } from "./organizations.js";

export function createOrganizationHandlers(
  organizations: Organizations,
): Pick<ServiceImpl<typeof CredentialService>, "createOrganization"> {
  return {
    async createOrganization(request) {
      const row = await organizations.createOrganization(request.name);
      return { organization: { organizationId: BigInt(row.id), name: row.name } };
    },
  };
}
