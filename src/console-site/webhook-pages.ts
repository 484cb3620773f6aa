// An app's webhooks in the console (/apps/{id}/webhooks?environment=sandbox|production, linked from the app's page):
// its endpoints in one environment (URL, events, enabled or disabled), each with its latest deliveries (event type,
// webhook-id, state, attempts, last attempt) and a Resend button; a test event, a new signing secret and deletion
// per endpoint; and the form that adds one, whose whsec_ secret is shown once. Every action is a ConsoleService
// call (src/console/webhooks.ts), which runs the WebhookService's own implementation: the console writes nothing
// the /v1/webhook-endpoints routes would not. Errors stay beside what they concern, in the page's language.
import type { WebhookDelivery, WebhookEndpoint } from "../../gen/partnerapi/v1/webhook_service_pb.js";
import { eventTypes } from "../events/index.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import type { MessageKey } from "../web/i18n.js";
import type { ApiError } from "./console-api.js";
import { environmentSwitch, moment, type EnvironmentName } from "./request-log-pages.js";
import { refusalOf, type Refusal } from "./error-summary.js";
import { alert, button, field, postForm, secretBox } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";
import { appWithRole, withApp } from "./app-lookup.js";

/** Deliveries shown per endpoint (the newest; the API pages further). */
const deliveriesShown = 10;

const wire = (environment: EnvironmentName) => (environment === "production" ? "PRODUCTION" : "SANDBOX");

/** A POST names its environment in the form; a GET in the query. */
function environmentOf(visit: Visit): EnvironmentName {
  const named = visit.method === "POST" ? visit.form.get("environment") : visit.query.get("environment");
  return named === "production" ? "production" : "sandbox";
}

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

function endpointCard(
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
    table = html`<div class="table-wrap" role="region" aria-labelledby="${captionId}" tabindex="0"><table class="deliveries"><caption id="${captionId}">${t("console.webhookDeliveriesCaption")}<span class="visually-hidden">: ${endpoint.url}</span></caption>
<thead><tr><th scope="col">${t("console.webhookColEvent")}</th><th scope="col">${t("console.webhookColId")}</th><th scope="col">${t("console.webhookColStatus")}</th><th scope="col">${t("console.webhookColAttempts")}</th><th scope="col">${t("console.webhookColLastAttempt")}</th><th scope="col">${canManage ? html`<span class="visually-hidden">${t("console.webhookResend")}</span>` : ""}</th></tr></thead>
<tbody>${deliveries.map((delivery) => deliveryRow(visit, base, environment, endpoint, delivery, canManage))}</tbody></table></div>`;
  return html`<section class="card" aria-labelledby="${headingId}"><h3 id="${headingId}"><bdi dir="ltr">${endpoint.url}</bdi></h3>
${refusal ? alert("error", errorText(refusal, locale, t)) : ""}
<dl class="facts"><dt>${t("console.state")}</dt><dd><span class="badge">${enabled ? t("console.webhookEnabled") : t("console.webhookDisabled")}</span>${endpoint.failingSince ? html` <span class="muted">${t("console.webhookFailingSince")} ${moment(Date.parse(endpoint.failingSince), locale, false)}</span>` : ""}</dd>
<dt>${t("console.webhookEvents")}</dt><dd>${events}</dd>
${endpoint.description ? html`<dt>${t("console.webhookDescription")}</dt><dd>${endpoint.description}</dd>` : ""}
<dt>${t("console.webhookEndpointId")}</dt><dd class="ltr"><code>${endpoint.id}</code></dd>
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

function refusalText(visit: Visit, error: ApiError): string {
  if (error.code === "developer.webhook_url_invalid") {
    const rule = urlRules.find(([pattern]) => pattern.test(error.params["rule"] ?? ""));
    if (rule) return visit.t(rule[1]);
  }
  return errorText(error, visit.locale, visit.t);
}

/** A refusal of the add form: its field (a code may mean one without naming it), its rule in the page's language. */
function createRefusal(visit: Visit, error: ApiError | undefined): Refusal {
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

function createForm(visit: Visit, base: string, environment: EnvironmentName, state: WebhookState): SafeHtml {
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

export async function webhooksPage(
  visit: Visit,
  appId: string,
  state: WebhookState = {},
  status = 200,
): Promise<Reply> {
  const { t, locale } = visit;
  return withApp(visit, appWithRole(visit, appId), async (found) => {
    const { app, rights } = found;
    const canManage = rights.manageApps && app.state !== "ARCHIVED";
    const environment = environmentOf(visit);
    const environmentName = environment === "production" ? t("console.production") : t("console.sandbox");
    const base = `/apps/${appId}/webhooks`;
    const listed = await visit.api("listAppWebhookEndpoints", { appId, environment: wire(environment) });
    const endpoints = listed.ok ? listed.value.endpoints : [];
    const limit = listed.ok ? listed.value.limit : 0;
    const deliveries = await Promise.all(
      endpoints.map(async (endpoint) => {
        const page = await visit.api("listAppWebhookDeliveries", {
          appId,
          environment: wire(environment),
          endpointId: endpoint.id,
          limit: deliveriesShown,
        });
        return page.ok ? page.value.deliveries : page.error;
      }),
    );
    const cards = endpoints.map((endpoint, index) =>
      endpointCard(
        visit,
        base,
        environment,
        endpoint,
        deliveries[index]!,
        canManage,
        state.endpointId === endpoint.id ? state.error : undefined,
      ),
    );
    const count = t("console.webhookCount", {
      count: new Intl.NumberFormat(locale).format(endpoints.length),
      limit: new Intl.NumberFormat(locale).format(limit),
    });
    const formShown = canManage && listed.ok && endpoints.length < limit;
    const body = html`<p><a href="/apps/${appId}">${t("console.backToApp", { name: app.name })}</a></p>
<p class="lead">${t("console.webhooksIntro")}</p>
${environmentSwitch(visit, base, environment)}
${state.notice ?? ""}
${listed.ok ? "" : alert("error", errorText(listed.error, locale, t))}
<section class="card" aria-labelledby="endpoints-heading"><h2 id="endpoints-heading">${t("console.webhookEndpointsHeading", { environment: environmentName })}</h2>
${listed.ok ? html`<p>${count}</p>` : ""}
${listed.ok && endpoints.length === 0 ? html`<p>${t("console.webhookNoEndpoints")}</p>` : ""}
${environment === "production" ? html`<p class="muted">${t("console.webhookProductionNote")}</p>` : ""}
</section>
${cards}
${formShown ? createForm(visit, base, environment, state) : ""}
${canManage && listed.ok && endpoints.length >= limit ? html`<p class="muted">${t("console.webhookLimitReached", { limit: new Intl.NumberFormat(locale).format(limit) })}</p>` : ""}`;
    const problems = !state.error
      ? []
      : state.endpointId === undefined && formShown
        ? createRefusal(visit, state.error).problems
        : [
            {
              text:
                state.endpointId === undefined ? errorText(state.error, locale, t) : refusalText(visit, state.error),
            },
          ];
    return visit.page(t("console.webhooksTitle", { name: app.name }), body, { status, copyScript: true, problems });
  });
}

/**
 * "Delete this endpoint?": what deleting does, "Yes, delete" (the form with confirm=yes) and a way back that changes
 * nothing. An endpoint no longer listed answers the webhooks page with the refusal.
 */
async function confirmDeletion(visit: Visit, appId: string, endpointId: string): Promise<Reply> {
  const { t } = visit;
  const environment = environmentOf(visit);
  const listed = await visit.api("listAppWebhookEndpoints", { appId, environment: wire(environment) });
  if (!listed.ok) return webhooksPage(visit, appId, { error: listed.error, endpointId }, listed.error.status);
  const endpoint = listed.value.endpoints.find((candidate) => candidate.id === endpointId);
  if (!endpoint) {
    const error: ApiError = { code: "developer.webhook_endpoint_not_found", params: {}, status: 404, fields: [] };
    return webhooksPage(visit, appId, { error, endpointId }, 404);
  }
  const back = `/apps/${appId}/webhooks?environment=${environment}`;
  // The page's title asks the question; the card says what the answer does (as the archive step).
  const body = html`<p><bdi dir="ltr">${endpoint.url}</bdi></p>
<section class="card" aria-labelledby="confirm-heading"><h2 id="confirm-heading" tabindex="-1" autofocus>${t("console.webhookDeleteConfirmHeading")}</h2>
<p>${t("console.webhookDeleteConsequence")}</p>
<div class="actions">${postForm(
    `/apps/${appId}/webhooks/${endpoint.id}/delete`,
    visit.csrf,
    button(t("console.webhookDeleteConfirm"), {
      kind: "danger",
      ariaLabel: `${t("console.webhookDeleteConfirm")}: ${endpoint.url}`,
    }),
    { className: "inline-form", hidden: { environment, confirm: "yes" } },
  )}<a class="button secondary" href="${back}">${t("console.webhookDeleteKeep")}</a></div></section>`;
  return visit.page(t("console.webhookDeleteConfirmTitle"), body);
}

/** The secret of a new endpoint or a rotation: shown once, with a copy button. */
function secretNotice(visit: Visit, heading: string, secret: string, extra?: string): SafeHtml {
  const { t } = visit;
  return html`<section class="card" aria-labelledby="webhook-secret-heading" role="status"><h2 id="webhook-secret-heading">${heading}</h2>
<p>${t("common.shownOnce")}</p>
${secretBox({ id: "webhook-secret", label: t("console.webhookSigningSecret"), value: secret, copy: t("common.copy"), copied: t("common.copied") })}
${extra ? html`<p>${extra}</p>` : ""}</section>`;
}

export async function createWebhookEndpoint(visit: Visit, appId: string): Promise<Reply> {
  const environment = environmentOf(visit);
  const typed = {
    url: (visit.form.get("url") ?? "").trim(),
    events: visit.form.getAll("events"),
    description: (visit.form.get("description") ?? "").trim(),
  };
  const created = await visit.api("createAppWebhookEndpoint", {
    appId,
    environment: wire(environment),
    url: typed.url,
    events: typed.events,
    description: typed.description,
  });
  if (!created.ok) return webhooksPage(visit, appId, { error: created.error, typed }, created.error.status);
  const { t } = visit;
  return webhooksPage(visit, appId, {
    notice: secretNotice(
      visit,
      t("console.webhookCreatedHeading", { url: created.value.endpoint!.url }),
      created.value.secret,
      t("console.webhookSecretUse"),
    ),
  });
}

type EndpointAction = "delete" | "enable" | "test" | "rotate";

export async function webhookEndpointAction(
  visit: Visit,
  appId: string,
  endpointId: string,
  action: EndpointAction,
): Promise<Reply> {
  const { t, locale } = visit;
  const fields = { appId, environment: wire(environmentOf(visit)), endpointId };
  const refused = (error: ApiError) => webhooksPage(visit, appId, { error, endpointId }, error.status);
  if (action === "delete") {
    // First the consequence, then the deletion by the confirmation's own form (as the consent site's disconnect).
    if (visit.form.get("confirm") !== "yes") return confirmDeletion(visit, appId, endpointId);
    const done = await visit.api("deleteAppWebhookEndpoint", fields);
    if (!done.ok) return refused(done.error);
    return webhooksPage(visit, appId, { notice: alert("ok", t("console.webhookDeleted")) });
  }
  if (action === "enable") {
    const done = await visit.api("enableAppWebhookEndpoint", fields);
    if (!done.ok) return refused(done.error);
    return webhooksPage(visit, appId, {
      notice: alert("ok", t("console.webhookEnabledAgain", { url: done.value.endpoint!.url })),
    });
  }
  if (action === "test") {
    const sent = await visit.api("sendAppTestWebhook", fields);
    if (!sent.ok) return refused(sent.error);
    return webhooksPage(visit, appId, {
      notice: alert(
        "ok",
        html`<p>${t("console.webhookTestSent")} <code class="ltr">${sent.value.eventId}</code></p><p>${t("console.webhookRefreshHint")}</p>`,
      ),
    });
  }
  const rotated = await visit.api("rotateAppWebhookSecret", fields);
  if (!rotated.ok) return refused(rotated.error);
  const until = rotated.value.endpoint?.previousSecretExpiresAt;
  return webhooksPage(visit, appId, {
    notice: secretNotice(
      visit,
      t("console.webhookRotatedHeading", { url: rotated.value.endpoint!.url }),
      rotated.value.secret,
      until
        ? t("console.webhookRotationOverlap", {
            until: new Intl.DateTimeFormat(locale, {
              dateStyle: "medium",
              timeStyle: "short",
              timeZone: "UTC",
            }).format(Date.parse(until)),
          })
        : undefined,
    ),
  });
}

export async function resendWebhookDelivery(
  visit: Visit,
  appId: string,
  endpointId: string,
  deliveryId: string,
): Promise<Reply> {
  const { t } = visit;
  const resent = await visit.api("resendAppWebhookDelivery", {
    appId,
    environment: wire(environmentOf(visit)),
    endpointId,
    deliveryId,
  });
  if (!resent.ok) return webhooksPage(visit, appId, { error: resent.error, endpointId }, resent.error.status);
  return webhooksPage(visit, appId, {
    notice: alert(
      "ok",
      html`<p>${t("console.webhookResent")} <code class="ltr">${resent.value.delivery!.eventId}</code></p><p>${t("console.webhookRefreshHint")}</p>`,
    ),
  });
}
