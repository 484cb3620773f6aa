// ConsoleService, the organization's sandbox merchants: provision (the owner's login shown once; counted per
// organization and per source address, so deactivate-then-provision cannot loop: src/console/limits.ts), list, and
// deactivate or reactivate, each behind the caller's organization role; the credential owner does the work.
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { describeLogin, describeMerchant } from "../credential/index.js";
import type { ConsoleContext } from "./console-context.js";
import { addressKeyOf } from "./limits.js";

export function createSandboxMerchantHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<ConsoleContext, "authenticate" | "credentials" | "fail" | "limits" | "requireRole">,
): Pick<
  ServiceImpl<typeof ConsoleService>,
  "provisionOrganizationSandboxMerchant" | "listOrganizationSandboxMerchants" | "setOrganizationSandboxMerchantActive"
> {
  const { fail, authenticate, requireRole, credentials, limits } = shared;
  return {
    async provisionOrganizationSandboxMerchant(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_sandbox");
      // Counted after the role check (only a member can spend the organization's allowance), before the work.
      await limits.sandboxProvision(Number(request.organizationId), addressKeyOf(ctx));
      const made = await credentials.provisionSandboxMerchant(Number(request.organizationId), {
        country: request.country,
        name: request.name,
      });
      return { merchant: describeMerchant(made.merchant), owner: describeLogin(made.owner) };
    },
    async listOrganizationSandboxMerchants(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "read");
      return {
        merchants: (await credentials.listSandboxMerchants(Number(request.organizationId))).map(describeMerchant),
      };
    },
    async setOrganizationSandboxMerchantActive(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_sandbox");
      const merchants = await credentials.listSandboxMerchants(Number(request.organizationId));
      if (!merchants.some((merchant) => merchant.company_id === Number(request.companyId)))
        throw fail("developer.merchant_not_found");
      const updated = await credentials.updateMerchantStatus(Number(request.companyId), { active: request.active });
      return { merchant: describeMerchant(updated) };
    },
  };
}
