// src/console/org-roles.ts: the one table of what each organization role may do in the console
// (docs/decisions.md, "Console", roles).
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { roleMay, type OrgAction } from "../../src/console/org-roles.js";
import type { OrgRole } from "../../src/console/queries/organization-member-queries.js";

const OrgRoles = suite("console/org-roles");

const roles: OrgRole[] = ["OWNER", "ADMIN", "DEVELOPER", "VIEWER"];

OrgRoles("every role reads; only OWNER and ADMIN archive apps and manage members", () => {
  for (const role of roles) assert.ok(roleMay(role, "read"), role);
  assert.equal(
    roles.filter((role) => roleMay(role, "archive_apps")),
    ["OWNER", "ADMIN"],
  );
  assert.equal(
    roles.filter((role) => roleMay(role, "manage_members")),
    ["OWNER", "ADMIN"],
  );
});

OrgRoles("DEVELOPER manages apps and sandbox merchants; VIEWER does nothing but read", () => {
  assert.equal(
    roles.filter((role) => roleMay(role, "manage_apps")),
    ["OWNER", "ADMIN", "DEVELOPER"],
  );
  assert.equal(
    roles.filter((role) => roleMay(role, "manage_sandbox")),
    ["OWNER", "ADMIN", "DEVELOPER"],
  );
  const actions: OrgAction[] = ["read", "manage_apps", "manage_sandbox", "archive_apps", "manage_members"];
  assert.equal(
    actions.filter((action) => roleMay("VIEWER", action)),
    ["read"],
  );
  assert.equal(
    actions.filter((action) => roleMay("DEVELOPER", action)),
    ["read", "manage_apps", "manage_sandbox"],
  );
  assert.equal(
    actions.filter((action) => roleMay("OWNER", action)),
    actions,
  );
  assert.equal(
    actions.filter((action) => roleMay("ADMIN", action)),
    actions,
  );
});

OrgRoles.run();
