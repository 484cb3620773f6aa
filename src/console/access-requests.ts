// ConsoleService, ADSR access requests: an app's developer asks a merchant's owner for stores, and follows the
// requests' states; the GrantService keeps them.
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { forwardedFrom } from "../runtime/service-caller.js";
import type { ConsoleContext } from "./console-context.js";

export function createAccessRequestHandlers(
  shared: ConsoleContext,
): Pick<ServiceImpl<typeof ConsoleService>, "createAppAccessRequest" | "listAppAccessRequests"> {
  const { authenticate, requireAppRole, grants } = shared;
  return {
    async createAppAccessRequest(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const made = await grants.createAccessRequest(
        { appId: request.appId, companyId: BigInt(request.companyId), storeIds: request.storeIds.map(BigInt) },
        forwardedFrom(ctx),
      );
      return { accessRequest: made.accessRequest };
    },
    async listAppAccessRequests(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      const listed = await grants.listAccessRequests({ appId: request.appId }, forwardedFrom(ctx));
      return { accessRequests: listed.accessRequests };
    },
  };
}
