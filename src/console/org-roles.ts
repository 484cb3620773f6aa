// What each organization role may do: the one table the console checks (docs/decisions.md, "Console", roles).
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
