// The parts of an app's webhooks page (./webhook-pages.ts): an endpoint's card with its latest deliveries, and the
// form that adds one with its refusal beside the field it concerns, in the page's language.
import type { WebhookDelivery, WebhookEndpoint } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { eventTypes } from "../events/index.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import type { MessageKey } from "../web/i18n.js";
import type { ApiError } from "./console-api.js";
import { moment, type EnvironmentName } from "./request-log-pages.js";
import { refusalOf, type Refusal } from "./error-summary.js";
import { alert, button, field, postForm } from "./ui.js";
import { errorText, type Visit } from "./visit.js";

/** What the page shows after a POST: a notice, or a refusal and what it concerns (with what was typed). */
export interface WebhookState {
  notice?: SafeHtml;
  error?: ApiError;
  /** The endpoint an action was refused on; absent: the add form. */
  endpointId?: string;
  typed?: { url: string; events: string[]; description: string };
}

const deliveryStates: Record<string, MessageKey> = {
  PENDING: "console.webhookStatePending",
  SUCCEEDED: "console.webhookStateSucceeded",
  FAILED: "console.webhookStateFailed",
};

function outcomeText(visit: Visit, outcome: string, statusCode: number | undefined): string {
  const { t } = visit;
  switch (outcome) {
    case "SUCCEEDED":
      return t("console.webhookOutcomeSucceeded", { status: String(statusCode ?? 200) });
    case "HTTP_ERROR":
      return t("console.webhookOutcomeHttpError", { status: String(statusCode ?? "") });
    case "TIMEOUT":
      return t("console.webhookOutcomeTimeout");
    case "CONNECTION_ERROR":
      // With a status: the receiver answered, then closed before its answer ended (a truncated 2xx is a failure).
      return statusCode === undefined
        ? t("console.webhookOutcomeConnection")
        : t("console.webhookOutcomeCut", { status: String(statusCode) });
    case "ADDRESS_REFUSED":
      return t("console.webhookOutcomeAddress");
    case "ENDPOINT_DISABLED":
      return t("console.webhookOutcomeDisabled");
    default:
      return outcome;
  }
}

function deliveryRow(
  visit: Visit,
  base: string,
  environment: EnvironmentName,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  canManage: boolean,
): SafeHtml {
  const { t, locale } = visit;
  const last = [...delivery.attempts].sort((a, b) => b.attempt - a.attempt)[0];
  const state = deliveryStates[delivery.state] ? t(deliveryStates[delivery.state]!) : delivery.state;
  const resend = canManage
    ? postForm(
        `${base}/${endpoint.id}/deliveries/${delivery.id}/resend`,
        visit.csrf,
        button(t("console.webhookResend"), {
          kind: "secondary",
          ariaLabel: `${t("console.webhookResend")}: ${delivery.eventType} ${delivery.eventId}`,
        }),
        { className: "inline-form", hidden: { environment } },
      )
    : "";
  return html`<tr>
<td><code class="ltr">${delivery.eventType}</code></td>
<td><code class="ltr">${delivery.eventId}</code></td>
<td><span class="badge">${state}</span>${delivery.state === "PENDING" && delivery.nextAttemptAt ? html`<br><span class="muted">${t("console.webhookNextAttempt")} ${moment(Date.parse(delivery.nextAttemptAt), locale)}</span>` : ""}</td>
<td>${new Intl.NumberFormat(locale).format(delivery.attempts.length)}</td>
<td>${last ? html`${moment(Date.parse(last.attemptedAt), locale)}<br><span class="muted">${outcomeText(visit, last.outcome, last.statusCode)}</span>` : t("console.webhookNoAttempt")}</td>
<td>${resend}</td>
</tr>`;
}

export function endpointCard(
  visit: Visit,
  base: string,
  environment: EnvironmentName,
  endpoint: WebhookEndpoint,
  deliveries: WebhookDelivery[] | ApiError,
  canManage: boolean,
  refusal: ApiError | undefined,
): SafeHtml {
  const { t, locale } = visit;
  const headingId = `endpoint-${endpoint.id}-heading`;
  const captionId = `endpoint-${endpoint.id}-deliveries`;
  const idId = `endpoint-${endpoint.id}-id`;
  const enabled = endpoint.status === "enabled";
  const events =
    endpoint.events.length === 0
      ? t("console.webhookAllEvents")
      : html`${endpoint.events.map((event, index) => html`${index > 0 ? ", " : ""}<code class="ltr">${event}</code>`)}`;
  const enable = postForm(
    `${base}/${endpoint.id}/enable`,
    visit.csrf,
    button(t("console.webhookEnable"), { ariaLabel: `${t("console.webhookEnable")}: ${endpoint.url}` }),
    { className: "inline-form", hidden: { environment } },
  );
  const actions = canManage
    ? html`<div class="actions">${enabled ? "" : enable}${postForm(`${base}/${endpoint.id}/test`, visit.csrf, button(t("console.webhookSendTest"), { kind: "secondary", ariaLabel: `${t("console.webhookSendTest")}: ${endpoint.url}` }), { className: "inline-form", hidden: { environment } })}
${postForm(`${base}/${endpoint.id}/rotate`, visit.csrf, button(t("console.webhookRotate"), { kind: "secondary", ariaLabel: `${t("console.webhookRotate")}: ${endpoint.url}` }), { className: "inline-form", hidden: { environment } })}
${postForm(`${base}/${endpoint.id}/delete`, visit.csrf, button(t("console.webhookDelete"), { kind: "danger", ariaLabel: `${t("console.webhookDelete")}: ${endpoint.url}` }), { className: "inline-form", hidden: { environment } })}</div>`
    : "";
  let table: SafeHtml;
  if (!Array.isArray(deliveries)) table = alert("error", errorText(deliveries, locale, t));
  else if (deliveries.length === 0) table = html`<p>${t("console.webhookNoDeliveries")}</p>`;
  else
    table = html`<div class="table-wrap" role="region" aria-labelledby="${captionId}" tabindex="0"><table class="deliveries"><caption id="${captionId}">${t("console.webhookDeliveriesCaption")}<span class="visually-hidden">: ${endpoint.url} (${endpoint.id})</span></caption>
<thead><tr><th scope="col">${t("console.webhookColEvent")}</th><th scope="col">${t("console.webhookColId")}</th><th scope="col">${t("console.webhookColStatus")}</th><th scope="col">${t("console.webhookColAttempts")}</th><th scope="col">${t("console.webhookColLastAttempt")}</th><th scope="col">${canManage ? html`<span class="visually-hidden">${t("console.webhookResend")}</span>` : ""}</th></tr></thead>
<tbody>${deliveries.map((delivery) => deliveryRow(visit, base, environment, endpoint, delivery, canManage))}</tbody></table></div>`;
  // Named by its URL and its id: two cards of one URL (made before duplicates were refused) are still two landmarks.
  return html`<section class="card" aria-labelledby="${headingId} ${idId}"><h3 id="${headingId}"><bdi dir="ltr">${endpoint.url}</bdi></h3>
${refusal ? alert("error", errorText(refusal, locale, t)) : ""}
<dl class="facts"><dt>${t("console.state")}</dt><dd><span class="badge">${enabled ? t("console.webhookEnabled") : t("console.webhookDisabled")}</span>${endpoint.failingSince ? html` <span class="muted">${t("console.webhookFailingSince")} ${moment(Date.parse(endpoint.failingSince), locale, false)}</span>` : ""}</dd>
<dt>${t("console.webhookEvents")}</dt><dd>${events}</dd>
${endpoint.description ? html`<dt>${t("console.webhookDescription")}</dt><dd>${endpoint.description}</dd>` : ""}
<dt>${t("console.webhookEndpointId")}</dt><dd class="ltr"><code id="${idId}">${endpoint.id}</code></dd>
${endpoint.previousSecretExpiresAt ? html`<dt>${t("console.webhookPreviousSecret")}</dt><dd>${moment(Date.parse(endpoint.previousSecretExpiresAt), locale, false)}</dd>` : ""}</dl>
${enabled ? "" : html`<p class="muted">${t("console.webhookDisabledExplain")}</p>`}
${actions}
<h4>${t("console.webhookDeliveriesHeading")}</h4>
${table}</section>`;
}

/** The WebhookService's URL rules (src/webhook/endpoint-url.ts) in the page's language: its `rule` is English. */
const urlRules: Array<[RegExp, MessageKey]> = [
  [/absolute URL/, "console.webhookRuleAbsolute"],
  [/https/, "console.webhookRuleHttps"],
  [/credentials/, "console.webhookRuleCredentials"],
  [/fragment/, "console.webhookRuleFragment"],
  [/public addresses/, "console.webhookRulePublic"],
  [/resolve to an address/, "console.webhookRuleResolve"],
];

export function refusalText(visit: Visit, error: ApiError): string {
  if (error.code === "developer.webhook_url_invalid") {
    const rule = urlRules.find(([pattern]) => pattern.test(error.params["rule"] ?? ""));
    if (rule) return visit.t(rule[1]);
  }
  return errorText(error, visit.locale, visit.t);
}

/** A refusal of the add form: its field (a code may mean one without naming it), its rule in the page's language. */
export function createRefusal(visit: Visit, error: ApiError | undefined): Refusal {
  const { t } = visit;
  const concerns =
    error?.code === "developer.webhook_url_invalid"
      ? ["url"]
      : error?.code === "developer.webhook_event_unknown"
        ? ["events"]
        : undefined;
  return refusalOf(
    visit,
    error,
    {
      url: { id: "field-url", label: t("console.webhookUrl") },
      events: { id: `event-${eventTypes[0]}`, label: t("console.webhookEvents"), items: "entry" },
      description: { id: "field-description", label: t("console.webhookDescription") },
    },
    { concerns, text: error?.code === "developer.webhook_url_invalid" ? refusalText(visit, error) : undefined },
  );
}

export function createForm(visit: Visit, base: string, environment: EnvironmentName, state: WebhookState): SafeHtml {
  const { t } = visit;
  const refused = state.endpointId === undefined ? state.error : undefined;
  const refusal = createRefusal(visit, refused);
  const chosen = new Set(state.typed?.events ?? []);
  const eventsError = refusal.at("events");
  const boxes = eventTypes.map(
    (event) =>
      html`<div class="choice"><input type="checkbox" id="event-${event}" name="events" value="${event}"${chosen.has(event) ? raw(" checked") : ""}><label for="event-${event}"><code class="ltr">${event}</code></label></div>`,
  );
  return html`<section class="card" aria-labelledby="add-endpoint-heading"><h2 id="add-endpoint-heading">${t("console.webhookAddHeading")}</h2>
${postForm(
  base,
  visit.csrf,
  html`${field({ label: t("console.webhookUrl"), name: "url", type: "url", required: true, value: state.typed?.url, hint: environment === "production" ? t("console.webhookUrlHintProduction") : t("console.webhookUrlHintSandbox"), error: refusal.at("url"), ltr: true })}
<fieldset${eventsError ? raw(' aria-describedby="events-error"') : ""}><legend>${t("console.webhookEvents")}</legend><p class="hint">${t("console.webhookEventsHint")}</p>${boxes}${eventsError ? html`<p class="field-error" id="events-error">${eventsError}</p>` : ""}</fieldset>
${field({ label: t("console.webhookDescription"), name: "description", value: state.typed?.description, hint: t("console.webhookDescriptionHint"), error: refusal.at("description") })}
<div class="actions">${button(t("console.webhookAdd"))}</div>`,
  { hidden: { environment } },
)}</section>`;
}
