// GrantService: grants between apps and merchants, authorization codes and ADSR access requests.
import type { ServiceImpl } from "@connectrpc/connect";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import type { ServiceContext } from "./dependencies.js";
import { notBuilt } from "./not-built.js";

export function createGrantService(_context: ServiceContext): ServiceImpl<typeof GrantService> {
  return {
    listGrants: notBuilt(GrantService, "ListGrants"),
    revokeGrant: notBuilt(GrantService, "RevokeGrant"),
  };
}
