// ConsoleService, ADSR access requests: an app's developer asks a merchant's owner for stores, and follows the
// requests' states; the grant owner keeps them (its plain interface, its own description of a request).
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { describeAccessRequest } from "../grant/index.js";
import type { ConsoleContext } from "./console-context.js";

export function createAccessRequestHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<ConsoleContext, "accessRequests" | "authenticate" | "requireAppRole">,
): Pick<ServiceImpl<typeof ConsoleService>, "createAppAccessRequest" | "listAppAccessRequests"> {
  const { authenticate, requireAppRole, accessRequests } = shared;
  return {
    async createAppAccessRequest(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const made = await accessRequests.create({
        appId: request.appId,
        companyId: Number(request.companyId),
        storeIds: request.storeIds.map(Number),
      });
      return { accessRequest: describeAccessRequest(made) };
    },
    async listAppAccessRequests(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      return { accessRequests: (await accessRequests.listForApp(request.appId)).map(describeAccessRequest) };
    },
  };
}
