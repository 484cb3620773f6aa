// An organization's members on its page: each with its role; for owners and admins, a role change and a removal
// beside each member but the owner (the server refuses the owner's, and every other role's, regardless). A refusal
// of the server is shown in the row of the member it concerns.
import { OrganizationRole, type OrganizationMember } from "../../gen/partnerapi/v1/console_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import { rightsOf, roleName } from "./labels.js";
import { alert, button, postForm } from "./ui.js";
import { errorText, type Visit } from "./visit.js";

/** The roles a member can be given (OWNER never: an organization has one owner). */
export const assignableRoles = [OrganizationRole.ADMIN, OrganizationRole.DEVELOPER, OrganizationRole.VIEWER] as const;

export function roleOptions(visit: Visit, selected: OrganizationRole): SafeHtml[] {
  return assignableRoles.map(
    (role) =>
      html`<option value="${OrganizationRole[role]}"${role === selected ? html` selected` : ""}>${roleName(visit, role)}</option>`,
  );
}

/** The members list; `error` (with `memberId`) is a refused change or removal, shown in that member's row. */
export function membersList(
  visit: Visit,
  organizationId: number,
  members: OrganizationMember[],
  viewerRole: OrganizationRole,
  refused?: { error: ApiError; memberId: number },
): SafeHtml {
  const { t } = visit;
  const canManage = rightsOf(viewerRole).manageMembers;
  const rows = members.map((member) => {
    const id = String(member.accountId);
    const error = refused && refused.memberId === Number(member.accountId) ? refused.error : undefined;
    const errorId = `member-${id}-error`;
    const controls =
      canManage && member.role !== OrganizationRole.OWNER
        ? html`${postForm(
            `/organizations/${organizationId}/members/${id}/role`,
            visit.csrf,
            html`<select id="member-${id}-role" name="role" aria-label="${t("console.memberRoleOf", { email: member.email })}"${error ? html` aria-describedby="${errorId}"` : ""}>${roleOptions(visit, member.role)}</select> ${button(t("console.changeRole"), { kind: "secondary", ariaLabel: `${t("console.changeRole")}: ${member.email}` })}`,
            { className: "inline-form" },
          )}${postForm(`/organizations/${organizationId}/members/${id}/remove`, visit.csrf, button(t("console.removeMember"), { kind: "danger", ariaLabel: `${t("console.removeMember")}: ${member.email}` }), { className: "inline-form" })}`
        : "";
    return html`<li data-member="${id}"><span class="ltr">${member.email}</span> <span class="badge">${roleName(visit, member.role)}</span> ${controls}${error ? html`<div id="${errorId}">${alert("error", errorText(error, visit.locale, t))}</div>` : ""}</li>`;
  });
  return html`<ul class="list">${rows}</ul>${canManage ? html`<p class="hint">${t("console.membersRule")}</p>` : ""}`;
}
