// The Settings section's "require pushed authorization requests" card (RFC 9126 section 6): whether the app's
// authorization requests must be pushed to POST /v1/oauth/par first, and the one button that turns it on or off
// (an UpdateDeveloperApp with only that field; the handler is app-forms.ts's setPushedRequests). OAuth apps only:
// ADSR apps use API keys and never reach the authorization endpoint.
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { button, postForm } from "./ui.js";
import type { Visit } from "./visit.js";

/** The card: the setting as it is, and the button that changes it. */
export function pushedRequestsCard(visit: Visit, app: App): SafeHtml {
  const { t } = visit;
  const required = app.requirePushedAuthorizationRequests;
  return html`<section class="card" aria-labelledby="par-heading"><h2 id="par-heading">${t("console.pushedRequestsHeading")}</h2>
<p>${t("console.pushedRequestsExplain")}</p>
<p><strong>${required ? t("console.pushedRequestsOn") : t("console.pushedRequestsOff")}</strong></p>
${postForm(
  `/apps/${app.appId}/pushed-requests`,
  visit.csrf,
  html`<div class="actions">${button(required ? t("console.stopRequiringPushedRequests") : t("console.requirePushedRequests"), { kind: "secondary" })}</div>`,
  { hidden: { required: required ? "false" : "true" } },
)}
</section>`;
}

/** The setting a posted card asks for; undefined when the form is not one of ours. */
export function requiredOfForm(visit: Visit): boolean | undefined {
  const value = visit.form.get("required");
  return value === "true" ? true : value === "false" ? false : undefined;
}
