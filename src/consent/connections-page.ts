// The merchant's connected apps: each app's product, permissions, since when and its last call, and a way to
// disconnect it (./pages.ts: the shell, the phrases, the confirmation step).
import { html } from "../web/html.js";
import { translator } from "../web/i18n.js";
import { hiddenFields } from "../web/layout.js";
import {
  type PageContext,
  rich,
  shell,
  permissionPhrases,
  productLabel,
  environmentLabel,
  formatDay,
  formatMoment,
  doneNotice,
} from "./pages.js";
import { whoIsAsking } from "./app-identity.js";

export interface ConnectionView {
  appId: string;
  appName: string;
  organizationName: string;
  product: string;
  environment: string;
  scopes: string[];
  since: Date;
  /** The app's last partner call for this merchant; undefined when it never called. */
  lastCall?: Date;
}

export function connectionsPage(
  context: PageContext,
  options: { companyName: string; owner: boolean; csrf: string; connections: ConnectionView[]; notice?: string },
): string {
  const t = translator(context.locale);
  const rows = options.connections.map(
    (
      row,
    ) => html`<li class="connection"><div class="connection-main">${whoIsAsking({ ...row, reviewed: row.environment === "PRODUCTION" }, context.locale, `connection-${row.appId}`)}
<p class="muted">${rich(t("consent.connectionFacts"), { product: productLabel(row.product, context.locale), environment: environmentLabel(row.environment, context.locale) })}</p>
<ul class="permissions compact" aria-label="${t("consent.permissionsOf", { app: row.appName })}">${permissionPhrases(row.scopes, context.locale).map((phrase) => html`<li>${phrase}</li>`)}</ul>
<p class="muted">${rich(t("consent.connectedOn"), { date: formatDay(row.since, context.locale) })} · ${row.lastCall ? rich(t("consent.lastCall"), { date: formatMoment(row.lastCall, context.locale) }) : t("consent.noCallsYet")}</p></div>${
      options.owner
        ? html`<form method="post" action="/oauth/connections/disconnect">${hiddenFields({ csrf: options.csrf, app_id: row.appId })}<button type="submit" class="danger" aria-label="${t("consent.disconnectApp", { app: row.appName })}">${t("consent.disconnect")}</button></form>`
        : ""
    }</li>`,
  );
  const list =
    options.connections.length > 0
      ? html`<ul class="list" aria-label="${t("consent.connectedApps")}">${rows}</ul>`
      : html`<p>${t("consent.noConnections")}</p>`;
  const note = options.owner ? "" : html`<p role="note">${t("consent.ownerOnlyDisconnect")}</p>`;
  return shell(
    context,
    t("consent.connectionsTitle", { company: options.companyName }),
    html`${options.notice ? doneNotice(options.notice) : ""}<p class="lead">${t("consent.connectionsIntro")}</p><section class="card">${list}${note}</section>`,
    { signedIn: { csrf: options.csrf, current: "connections" } },
  );
}
