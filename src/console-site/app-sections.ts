// The app page's sections: which apply to an app (its product, its state, the viewer's role), where each one is
// (its own path that answers GET), and the section menu that names them. Each section is one view with at most one
// primary action, so the page stays short on a phone and offers nothing the app cannot use: an ADSR app (API keys,
// spec "Products") has no client secrets, IP allowlists of client ids or redirect URIs; a FULL or ONLINE_ORDER app
// (OAuth) has no API keys or access requests.
import { Product, type App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import type { MessageKey } from "../web/i18n.js";
import type { Visit } from "./visit.js";

/** The sections, in the menu's order. `overview` is `/apps/{id}` itself; the others `/apps/{id}/{section}`. */
export const appSections = [
  "overview",
  "credentials",
  "api-keys",
  "access-requests",
  "redirect-uris",
  "review",
  "settings",
] as const;
export type AppSection = (typeof appSections)[number];

const labels: Record<AppSection, MessageKey> = {
  overview: "console.sectionOverview",
  credentials: "console.credentialsHeading",
  "api-keys": "console.apiKeysHeading",
  "access-requests": "console.accessRequestsHeading",
  "redirect-uris": "console.redirectsHeading",
  review: "console.reviewHeading",
  settings: "console.sectionSettings",
};

export function sectionLabel(visit: Visit, section: AppSection): string {
  return visit.t(labels[section]);
}

export function sectionPath(appId: string, section: AppSection): string {
  return section === "overview" ? `/apps/${appId}` : `/apps/${appId}/${section}`;
}

/** What the viewer may do with the app (rightsOf its role in the app's organization). */
export interface AppRights {
  manageApps: boolean;
  archiveApps: boolean;
}

/** Whether `section` is part of this app's page for this viewer. */
export function sectionApplies(section: AppSection, app: App, rights: AppRights): boolean {
  const archived = app.state === "ARCHIVED";
  const adsr = app.product === Product.ADSR;
  switch (section) {
    case "overview":
      return true;
    // A client id and secret are for the OAuth products; an ADSR app's calls use API keys (its client credentials
    // are refused at /v1/token with developer.use_api_key).
    case "credentials":
      return !adsr;
    case "api-keys":
    case "access-requests":
      return adsr;
    // ADSR apps never use the OAuth redirect (they call with API keys): no section, whatever was stored.
    case "redirect-uris":
      return !adsr;
    // An archived app is not reviewed again, and nothing of it can be renamed or archived.
    case "review":
      return !archived;
    case "settings":
      return !archived && rights.manageApps;
  }
}

/** The section menu: a link per section that applies, the current one marked for assistive technology. */
export function sectionMenu(visit: Visit, app: App, rights: AppRights, current: AppSection): SafeHtml {
  const items = appSections
    .filter((section) => sectionApplies(section, app, rights))
    .map(
      (section) =>
        html`<li><a href="${sectionPath(app.appId, section)}"${section === current ? raw(' aria-current="page"') : ""}>${sectionLabel(visit, section)}</a></li>`,
    );
  return html`<nav class="tabs section-menu" aria-label="${visit.t("console.appSectionsNav")}"><ul>${items}</ul></nav>`;
}
