// An app's webhooks in the console (/apps/{id}/webhooks?environment=sandbox|production, linked from the app's page):
// its endpoints in one environment (URL, events, enabled or disabled), each with its latest deliveries (event type,
// webhook-id, state, attempts, last attempt) and a Resend button; a test event, a new signing secret and deletion
// per endpoint; and the form that adds one, whose whsec_ secret is shown once. Every action is a ConsoleService
// call (src/console/webhooks.ts), which runs the WebhookService's own implementation: the console writes nothing
// the /v1/webhook-endpoints routes would not. Errors stay beside what they concern, in the page's language. The
// page's parts (an endpoint's card, its deliveries, the add form and its refusals): ./webhook-sections.ts.
import { html, type SafeHtml } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import { environmentSwitch, type EnvironmentName } from "./request-log-pages.js";
import { alert, button, postForm, secretBox } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";
import { appWithRole, withApp } from "./app-lookup.js";
import { type WebhookState, endpointCard, refusalText, createRefusal, createForm } from "./webhook-sections.js";

/** Deliveries shown per endpoint (the newest; the API pages further). */
const deliveriesShown = 10;

const wire = (environment: EnvironmentName) => (environment === "production" ? "PRODUCTION" : "SANDBOX");

/** A POST names its environment in the form; a GET in the query. */
function environmentOf(visit: Visit): EnvironmentName {
  const named = visit.method === "POST" ? visit.form.get("environment") : visit.query.get("environment");
  return named === "production" ? "production" : "sandbox";
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
