// CredentialService, the merchant directory, its users and sandbox merchants: the RPCs over ./merchants.ts and
// ./sandbox-merchants.ts (protobuf in and out here only: ids and roles mapped once).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  MerchantRole,
  type CredentialService,
  type MerchantLoginSchema,
} from "../../gen/partnerapi/v1/credential_service_pb.js";
import { describeMerchant } from "./credential-context.js";
import type { MerchantUser } from "./merchant-directory.js";
import type { MerchantAdmin, NewMerchantLogin } from "./merchants.js";
import type { SandboxMerchants } from "./sandbox-merchants.js";

const roles: Record<MerchantUser["role"], MerchantRole> = {
  OWNER: MerchantRole.OWNER,
  EMPLOYEE: MerchantRole.EMPLOYEE,
};

const roleName = (role: MerchantRole): MerchantUser["role"] | undefined =>
  role === MerchantRole.OWNER ? "OWNER" : role === MerchantRole.EMPLOYEE ? "EMPLOYEE" : undefined;

/** A merchant user's login just made, its password shown once. */
export function describeLogin(login: NewMerchantLogin): MessageInitShape<typeof MerchantLoginSchema> {
  return {
    userId: String(login.userId),
    companyId: BigInt(login.companyId),
    email: login.email,
    role: roles[login.role],
    password: login.password,
  };
}

export function createMerchantHandlers(
  merchants: MerchantAdmin,
  sandbox: SandboxMerchants,
): Pick<
  ServiceImpl<typeof CredentialService>,
  | "createMerchant"
  | "getMerchant"
  | "updateMerchantStatus"
  | "createMerchantUser"
  | "provisionSandboxMerchant"
  | "listSandboxMerchants"
> {
  return {
    async createMerchant(request) {
      const merchant = await merchants.createMerchant({
        companyId: Number(request.companyId) || undefined,
        name: request.name,
        region: request.region,
      });
      return { merchant: describeMerchant(merchant) };
    },
    async getMerchant(request) {
      return { merchant: describeMerchant(await merchants.getMerchant(Number(request.companyId))) };
    },
    async updateMerchantStatus(request) {
      const merchant = await merchants.updateMerchantStatus(Number(request.companyId), {
        active: request.active,
        provisioned: request.provisioned,
      });
      return { merchant: describeMerchant(merchant) };
    },
    async createMerchantUser(request) {
      const login = await merchants.createMerchantUser(Number(request.companyId), {
        email: request.email,
        role: roleName(request.role),
      });
      return { user: describeLogin(login) };
    },
    async provisionSandboxMerchant(request) {
      const { merchant, owner } = await sandbox.provisionSandboxMerchant(Number(request.organizationId), {
        country: request.country,
        name: request.name,
      });
      return { merchant: describeMerchant(merchant), owner: describeLogin(owner) };
    },
    async listSandboxMerchants(request) {
      return { merchants: (await sandbox.listSandboxMerchants(Number(request.organizationId))).map(describeMerchant) };
    },
  };
}
