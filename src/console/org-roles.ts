// What each organization role may do: the one table the console checks (docs/decisions.md, "Console", roles).
import { OrganizationRole } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { OrgRole } from "./queries/organization-member-queries.js";

export type OrgAction =
  | "read" // the organization, its members, apps, sandbox merchants and access requests
  | "manage_apps" // create, rename and submit apps; redirect URIs, secrets, allowlists, API keys; access requests
  | "manage_sandbox" // provision, deactivate and reactivate sandbox merchants
  | "archive_apps"
  | "manage_members"; // invite, change roles, remove members

const allowed: Record<OrgAction, readonly OrgRole[]> = {
  read: ["OWNER", "ADMIN", "DEVELOPER", "VIEWER"],
  manage_apps: ["OWNER", "ADMIN", "DEVELOPER"],
  manage_sandbox: ["OWNER", "ADMIN", "DEVELOPER"],
  archive_apps: ["OWNER", "ADMIN"],
  manage_members: ["OWNER", "ADMIN"],
};

export function roleMay(role: OrgRole, action: OrgAction): boolean {
  return allowed[action].includes(role);
}

/** Each role as the ConsoleService's enum names it, and back (undefined for UNSPECIFIED). */
export const roleNames: Record<OrgRole, OrganizationRole> = {
  OWNER: OrganizationRole.OWNER,
  ADMIN: OrganizationRole.ADMIN,
  DEVELOPER: OrganizationRole.DEVELOPER,
  VIEWER: OrganizationRole.VIEWER,
};
export const roleOf = (role: OrganizationRole): OrgRole | undefined =>
  (Object.entries(roleNames) as Array<[OrgRole, OrganizationRole]>).find(([, value]) => value === role)?.[0];
