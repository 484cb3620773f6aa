// An organization's pending invitations on its page: each with its email, role, when and by whom it was sent and
// when it expires (or expired); for owners and admins, a resend (a new link, the old one stops working) and a
// revoke beside each. A refusal of the server is shown in the row of the invitation it concerns.
import type { OrganizationInvitation } from "../../gen/partnerapi/v1/console_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import { roleName, shownTime } from "./labels.js";
import { alert, button, postForm } from "./ui.js";
import { errorText, type Visit } from "./visit.js";

/**
 * A left-to-right value (an email) inside a sentence of the page's language, isolated (U+2068 FSI ... U+2069 PDI):
 * in an Arabic sentence its dots and @ stay with it instead of the bidi algorithm moving them and the words around.
 */
const isolated = (value: string) => `\u2068${value}\u2069`;

/** The pending invitations section; `refused` is a resend or revoke the server refused, shown in its row. */
export function pendingInvitations(
  visit: Visit,
  organizationId: number,
  invitations: OrganizationInvitation[],
  canManage: boolean,
  refused?: { error: ApiError; invitationId: number },
): SafeHtml {
  const { t, locale } = visit;
  const rows = invitations.map((invitation) => {
    const id = String(invitation.invitationId);
    const expired = new Date(invitation.expiresAt).getTime() <= visit.now();
    const ends = t(expired ? "console.invitationExpired" : "console.invitationExpires", {
      when: shownTime(invitation.expiresAt, locale),
    });
    const error = refused && refused.invitationId === Number(invitation.invitationId) ? refused.error : undefined;
    const controls = canManage
      ? html`${postForm(`/organizations/${organizationId}/invitations/${id}/resend`, visit.csrf, button(t("console.resendInvitation"), { kind: "secondary", ariaLabel: `${t("console.resendInvitation")}: ${invitation.email}` }), { className: "inline-form" })}${postForm(`/organizations/${organizationId}/invitations/${id}/revoke`, visit.csrf, button(t("console.revoke"), { kind: "danger", ariaLabel: `${t("console.revoke")}: ${invitation.email}` }), { className: "inline-form" })}`
      : "";
    const sent = t("console.invitationSentBy", {
      when: shownTime(invitation.createdAt, locale),
      inviter: isolated(invitation.invitedByEmail),
    });
    return html`<li data-invitation="${id}"><span class="ltr">${invitation.email}</span> <span class="badge">${roleName(visit, invitation.role)}</span>
<p class="hint">${sent} · ${expired ? html`<strong>${ends}</strong>` : ends}</p>${controls}${error ? html`<div id="invitation-${id}-error">${alert("error", errorText(error, locale, t))}</div>` : ""}</li>`;
  });
  return html`<h3>${t("console.pendingInvitationsHeading")}</h3>
${invitations.length === 0 ? html`<p>${t("console.noPendingInvitations")}</p>` : html`<ul class="list">${rows}</ul>`}${canManage && invitations.length > 0 ? html`<p class="hint">${t("console.pendingInvitationsRule")}</p>` : ""}`;
}
