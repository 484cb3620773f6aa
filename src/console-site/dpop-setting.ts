// The Settings section's "require DPoP" card (RFC 9449): whether every token of the app must be bound to a key the
// app's server holds (a DPoP proof at the token endpoint and on every partner call), and the one button that turns it
// on or off (an UpdateDeveloperApp with only that field; the handler is app-forms.ts's setRequireDpop). OAuth apps
// only: ADSR apps use API keys, which are not tokens.
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { button, postForm } from "./ui.js";
import type { Visit } from "./visit.js";

/** The card: the setting as it is, and the button that changes it (the form's `required` field, as PAR's card). */
export function dpopCard(visit: Visit, app: App): SafeHtml {
  const { t } = visit;
  const required = app.requireDpop;
  return html`<section class="card" aria-labelledby="dpop-heading"><h2 id="dpop-heading">${t("console.dpopHeading")}</h2>
<p>${t("console.dpopExplain")}</p>
<p><strong>${required ? t("console.dpopOn") : t("console.dpopOff")}</strong></p>
${postForm(
  `/apps/${app.appId}/dpop`,
  visit.csrf,
  html`<div class="actions">${button(required ? t("console.stopRequiringDpop") : t("console.requireDpop"), { kind: "secondary" })}</div>`,
  { hidden: { required: required ? "false" : "true" } },
)}
</section>`;
}
