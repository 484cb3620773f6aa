// The production credentials card of an APPROVED app (its one reveal is app-pages.ts's revealProduction). A reveal replaces the secret issued at
// approval, so it is offered only while no secret of the production client id was ever handed out; after, the card
// says when and to whom, and points at rotation, whose overlap keeps the secret in use working (docs/decisions.md,
// "A reveal never kills a secret in use").
import { Environment, type App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { momentText } from "../web/i18n.js";
import { button, postForm } from "./ui.js";
import type { Visit } from "./visit.js";

/** A left-to-right value (an email, a file name) isolated inside a sentence of the page's language (U+2068 … U+2069). */
const isolated = (value: string) => `\u2068${value}\u2069`;

/** The card: the reveal with its consequence said before the click, or when and to whom the secret was shown. */
export function productionCard(visit: Visit, app: App): SafeHtml {
  const { t } = visit;
  const production = app.credentials.find((client) => client.environment === Environment.PRODUCTION);
  const shownAt = Number(production?.secretShownAtMs ?? 0n);
  const heading = html`<h2 id="production-heading">${t("console.productionHeading")}</h2>`;
  if (shownAt > 0) {
    const when = momentText(visit.locale, shownAt);
    const to = production?.secretShownTo ?? "";
    const said =
      to === ""
        ? t("console.productionShownUnrecorded", { when })
        : t("console.productionShown", {
            when,
            to: isolated(to === "demo.json" ? t("console.shownToDemoFile") : to),
          });
    return html`<section class="card" aria-labelledby="production-heading">${heading}
<p>${said}</p>
<p>${t("console.productionRotateInstead")}</p></section>`;
  }
  return html`<section class="card" aria-labelledby="production-heading">${heading}
<p>${t("console.productionExplain")}</p>
${postForm(`/apps/${app.appId}/production-credentials`, visit.csrf, html`<div class="actions">${button(t("console.revealProduction"))}</div>`)}</section>`;
}
