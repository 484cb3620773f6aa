// The consent page of the authorization endpoint: who asks, for what, and the merchant's decision (./pages.ts: the
// shell and the phrases it shares with the other pages).
import { html } from "../web/html.js";
import { translator } from "../web/i18n.js";
import { hiddenFields } from "../web/layout.js";
import { type PageContext, nameInSentence, rich, shell, permissionPhrases, productLabel } from "./pages.js";
import { type AppLinks, whoIsAsking } from "./app-identity.js";

export interface ConsentView {
  appId: string;
  appName: string;
  /** The developer: the organization that owns the app. */
  organizationName: string;
  /** Reviewed by staff: a production client passes only when its app is APPROVED; a sandbox one never was. */
  reviewed: boolean;
  product: string;
  scopes: string[];
  /** The merchant's company, by name (its number means nothing to a merchant). */
  companyName: string;
  email: string;
  owner: boolean;
  csrf: string;
  /** Where the decision sends the merchant: the host of the (validated) redirect URI. */
  redirectHost: string;
  /** The app's public pages, given by the developer in the console (absent ones are not shown). */
  links: AppLinks;
  /** The authorize parameters, carried back on the decision POST and checked again there. */
  params: Record<string, string | undefined>;
}

/**
 * The consent screen, ordered for a phone (375×812: the decision must show without scrolling): who is asking, for
 * which business, what it may do and for how long, then Allow / Deny and where they lead. What the merchant may want
 * to read before deciding but need not (the app's pages, technical names, what happens next) follows below.
 */
export function consentPage(context: PageContext, view: ConsentView): string {
  const t = translator(context.locale);
  const app = nameInSentence(view.appName);
  const summary = html`<section class="card consent-summary" aria-labelledby="asker-heading">
${whoIsAsking(view, context.locale, "asker-heading")}
<p class="lead">${rich(t("consent.wantsToConnect"), { app, company: nameInSentence(view.companyName) })}</p>
<h3 id="permissions-heading">${t("consent.willBeAbleTo")}</h3>
<ul class="permissions" aria-labelledby="permissions-heading">${permissionPhrases(view.scopes, context.locale).map((phrase) => html`<li>${phrase}</li>`)}</ul>
<p class="duration">${t("consent.untilDisconnect")}</p>
</section>`;
  const decision = view.owner
    ? html`<section class="card decision" aria-label="${t("consent.decision")}">
<form method="post" action="/oauth/authorize/decision">${hiddenFields({ csrf: view.csrf, ...view.params })}
<div class="actions"><button type="submit" name="decision" value="allow">${t("consent.allow")}</button> <button type="submit" name="decision" value="deny" class="secondary">${t("consent.deny")}</button></div>
</form>
<p class="hint">${rich(t("consent.returnsTo"), { host: html`<bdi class="ltr">${view.redirectHost}</bdi>` })} ${rich(t("consent.signedInAs"), { email: html`<bdi>${view.email}</bdi>` })}</p>
</section>`
    : html`<section class="card" role="note" aria-label="${t("consent.ownerNeeded")}"><h2>${t("consent.askOwnerTitle")}</h2>
<p>${rich(t("consent.askOwnerText"), { company: view.companyName })}</p>
<p class="hint">${rich(t("consent.signedInAs"), { email: html`<bdi>${view.email}</bdi>` })}</p></section>`;
  const more = html`<section class="card" aria-labelledby="about-heading">
<h2 id="about-heading">${t("consent.aboutApp")}</h2>
${view.links.website || view.links.privacyUrl || view.links.termsUrl ? "" : html`<p class="muted">${t("consent.noLinks")}</p>`}
<p><span class="badge">${rich(t("consent.productLabel"), { product: productLabel(view.product, context.locale) })}</span></p>
<details class="technical"><summary>${t("consent.technicalNames")}</summary><ul class="ltr" aria-label="${t("consent.permissions")}">${view.scopes.map((scope) => html`<li><code>${scope}</code></li>`)}</ul></details>
${
  view.owner
    ? html`<h3>${t("consent.whatNextTitle")}</h3>
<ul class="next-steps">
<li>${rich(t("consent.whatNextAllow"), { app: view.appName })}</li>
<li>${rich(t("consent.whatNextDeny"), { app: view.appName })}</li>
<li>${rich(t("consent.disconnectLater"), { link: html`<a href="/oauth/connections">${t("consent.connectionsLink")}</a>` })}</li>
</ul>`
    : ""
}
</section>`;
  return shell(context, t("consent.connectTitle"), html`${summary}${decision}${more}`, {
    narrow: true,
    signedIn: { csrf: view.csrf },
  });
}
