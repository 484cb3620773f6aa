// The mailed invitation link (/invitations/accept?token=...): signed in, a button accepts it for the account (the
// API checks that the invited email is the account's); signed out, sign in (or sign up first) and come back: the
// sign-up carries the invitation through the verification mail (a cookie, console-server.ts), so its sign-in
// leads here rather than to the dashboard.
import { html } from "../web/html.js";
import { alert, button, postForm } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";

export function invitationPage(visit: Visit): Reply {
  const { t } = visit;
  const token = visit.query.get("token") ?? "";
  const back = `/invitations/accept?token=${encodeURIComponent(token)}`;
  if (!visit.signedIn) {
    return visit.page(
      t("console.invitationTitle"),
      html`<p>${t("console.invitationSignIn")}</p><p class="actions"><a class="button" href="/sign-in?return_to=${encodeURIComponent(back)}">${t("console.signIn")}</a> <a class="button secondary" href="/sign-up?return_to=${encodeURIComponent(back)}">${t("console.signUp")}</a></p>`,
      { narrow: true },
    );
  }
  return visit.page(
    t("console.invitationTitle"),
    html`<p>${t("console.invitationExplain")}</p>${postForm("/invitations/accept", visit.csrf, html`<div class="actions">${button(t("console.invitationAccept"))}</div>`, { hidden: { token } })}`,
    { narrow: true },
  );
}

export async function acceptInvitation(visit: Visit): Promise<Reply> {
  const result = await visit.api("acceptOrganizationInvitation", { token: visit.form.get("token") ?? "" });
  if (!result.ok) {
    const message = errorText(result.error, visit.locale, visit.t);
    return visit.page(visit.t("console.invitationTitle"), alert("error", message), {
      status: result.error.status,
      narrow: true,
      problems: [{ text: message }],
    });
  }
  return { status: 303, location: `/organizations/${result.value.organization?.organizationId ?? ""}` };
}
