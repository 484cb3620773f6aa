// The Settings section's "Security" card of an OAuth app: two settings an app's owner turns on when its server is
// ready, each with its state and the one button that changes it (an UpdateDeveloperApp with only that field; the
// handlers are app-forms.ts's setPushedRequests and setRequireDpop):
// - pushed authorization requests (RFC 9126 section 6): authorization requests must be pushed to POST /v1/oauth/par
//   first;
// - DPoP (RFC 9449): every token is bound to a key the app's server holds, with a proof at the token endpoint and on
//   every partner call.
// ADSR apps have no card: they use API keys, which are neither authorization requests nor tokens.
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { MessageKey } from "../web/i18n.js";
import { html, type SafeHtml } from "../web/html.js";
import { button, postForm } from "./ui.js";
import type { Visit } from "./visit.js";

interface Setting {
  id: string;
  path: string;
  required: boolean;
  heading: MessageKey;
  explain: MessageKey;
  on: MessageKey;
  off: MessageKey;
  turnOn: MessageKey;
  turnOff: MessageKey;
}

/** One setting: a region named by its heading (so a reader of the page, and a test, finds it by name). */
function settingBlock(visit: Visit, app: App, setting: Setting): SafeHtml {
  const { t } = visit;
  return html`<section class="setting" aria-labelledby="${setting.id}-heading"><h3 id="${setting.id}-heading">${t(setting.heading)}</h3>
<p>${t(setting.explain)}</p>
<p><strong>${setting.required ? t(setting.on) : t(setting.off)}</strong></p>
${postForm(
  `/apps/${app.appId}/${setting.path}`,
  visit.csrf,
  html`<div class="actions">${button(setting.required ? t(setting.turnOff) : t(setting.turnOn), { kind: "secondary" })}</div>`,
  { hidden: { required: setting.required ? "false" : "true" } },
)}
</section>`;
}

/** The card: pushed requests first (they come first in an authorization), then DPoP. */
export function securityCard(visit: Visit, app: App): SafeHtml {
  return html`<section class="card" aria-labelledby="security-heading"><h2 id="security-heading">${visit.t("console.securityHeading")}</h2>
${settingBlock(visit, app, {
  id: "par",
  path: "pushed-requests",
  required: app.requirePushedAuthorizationRequests,
  heading: "console.pushedRequestsHeading",
  explain: "console.pushedRequestsExplain",
  on: "console.pushedRequestsOn",
  off: "console.pushedRequestsOff",
  turnOn: "console.requirePushedRequests",
  turnOff: "console.stopRequiringPushedRequests",
})}
${settingBlock(visit, app, {
  id: "dpop",
  path: "dpop",
  required: app.requireDpop,
  heading: "console.dpopHeading",
  explain: "console.dpopExplain",
  on: "console.dpopOn",
  off: "console.dpopOff",
  turnOn: "console.requireDpop",
  turnOff: "console.stopRequiringDpop",
})}
</section>`;
}

/** The setting a posted form asks for; undefined when the form is not one of ours. */
export function requiredOfForm(visit: Visit): boolean | undefined {
  const value = visit.form.get("required");
  return value === "true" ? true : value === "false" ? false : undefined;
}
