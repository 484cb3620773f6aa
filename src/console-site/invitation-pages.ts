// The mailed invitation link (/invitations/accept?token=...): signed in, the page says who invited the account to
// which organization with which role (PreviewOrganizationInvitation) before a button accepts it (the API checks
// that the invited email is the account's); a link that can no longer be accepted is said in words instead, with
// no button. Signed out, sign in (or sign up first) and come back: the sign-up carries the invitation through the
// verification mail (a cookie, console-server.ts), so its sign-in leads here rather than to the dashboard.
import { html } from "../web/html.js";
import { roleName, shownTime } from "./labels.js";
import { alert, button, postForm } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";

/**
 * A value typed by someone else (an email, an organization's name) inside a sentence of the page's language,
 * isolated (U+2068 FSI ... U+2069 PDI): its own direction never reorders the sentence around it.
 */
const isolated = (value: string) => `\u2068${value}\u2069`;

export async function invitationPage(visit: Visit): Promise<Reply> {
  const { t, locale } = visit;
  const token = visit.query.get("token") ?? "";
  const back = `/invitations/accept?token=${encodeURIComponent(token)}`;
  if (!visit.signedIn) {
    return visit.page(
      t("console.invitationTitle"),
      html`<p>${t("console.invitationSignIn")}</p><p class="actions"><a class="button" href="/sign-in?return_to=${encodeURIComponent(back)}">${t("console.signIn")}</a> <a class="button secondary" href="/sign-up?return_to=${encodeURIComponent(back)}">${t("console.signUp")}</a></p>`,
      { narrow: true },
    );
  }
  const preview = await visit.api("previewOrganizationInvitation", { token });
  if (!preview.ok) {
    return visit.page(
      t("console.invitationTitle"),
      html`${alert("error", errorText(preview.error, locale, t))}<p><a href="/">${t("console.dashboardTitle")}</a></p>`,
      { status: preview.error.status, narrow: true },
    );
  }
  const invitation = preview.value.invitation!;
  const from = t("console.invitationFrom", {
    inviter: isolated(invitation.invitedByEmail),
    organization: isolated(preview.value.organizationName),
    role: roleName(visit, invitation.role),
  });
  return visit.page(
    t("console.invitationTitle"),
    html`<p class="lead">${from}</p><p class="hint">${t("console.invitationUntil", { when: shownTime(invitation.expiresAt, locale) })}</p>${postForm("/invitations/accept", visit.csrf, html`<div class="actions">${button(t("console.invitationAccept"))}</div>`, { hidden: { token } })}`,
    { narrow: true },
  );
}

export async function acceptInvitation(visit: Visit): Promise<Reply> {
  const result = await visit.api("acceptOrganizationInvitation", { token: visit.form.get("token") ?? "" });
  if (!result.ok) {
    const message = errorText(result.error, visit.locale, visit.t);
    // Said once, by the error summary; the page offers the way on.
    return visit.page(
      visit.t("console.invitationTitle"),
      html`<p><a href="/">${visit.t("console.dashboardTitle")}</a></p>`,
      {
        status: result.error.status,
        narrow: true,
        problems: [{ text: message }],
      },
    );
  }
  return { status: 303, location: `/organizations/${result.value.organization?.organizationId ?? ""}` };
}
