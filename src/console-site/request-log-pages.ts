// What an app is doing, in the console: its request log (the last partner calls of one environment and its calls of
// the OAuth endpoints, filtered as ./request-log-filters.ts reads them, each with a detail view holding the error
// body the app received) and its usage (requests a minute against the limit, and 429s, over the last 24 hours: a
// server-rendered SVG chart, ./usage-chart.ts, no script, no external host, with an hourly table beside it for
// screen readers). Both read the ConsoleService (ListAppRequestLog, GetAppRequestLogEntry, GetAppUsage) like every
// other console page.
import { Environment } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { RequestLogEntry } from "../../gen/partnerapi/v1/console_service_pb.js";
import { html, jsonSample, raw, type SafeHtml } from "../web/html.js";
import { formatNumber, millisecondsText, momentText, type Locale } from "../web/i18n.js";
import { withApp } from "./app-lookup.js";
import { alert } from "./ui.js";
import { filtersForm, readLogFilters } from "./request-log-filters.js";
import { usageChart } from "./usage-chart.js";
import { errorText, type Reply, type Visit } from "./visit.js";

export type EnvironmentName = "sandbox" | "production";

function environmentOf(visit: Visit): EnvironmentName {
  return visit.query.get("environment") === "production" ? "production" : "sandbox";
}

const wire = (environment: EnvironmentName) => (environment === "production" ? "PRODUCTION" : "SANDBOX");

/** A moment in the reader's language (Intl), UTC said as such: the log's times are the server's. */
export function moment(ms: number, locale: Locale, withSeconds = true): SafeHtml {
  const text = momentText(locale, ms, { seconds: withSeconds, year: false });
  return html`<time datetime="${new Date(ms).toISOString()}"><bdi>${text}</bdi></time>`;
}

function number(value: number, locale: Locale): string {
  return formatNumber(locale, value);
}

/** Sandbox / Production as two links, the current one marked (each keeps the other filters). */
export function environmentSwitch(visit: Visit, base: string, environment: EnvironmentName): SafeHtml {
  const { t } = visit;
  const link = (name: EnvironmentName, label: string) => {
    const query = new URLSearchParams(visit.query);
    query.set("environment", name);
    query.delete("lang");
    return html`<li><a href="${base}?${query.toString()}"${name === environment ? raw(' aria-current="page"') : ""}>${label}</a></li>`;
  };
  return html`<nav class="tabs" aria-label="${t("console.environment")}"><ul>${link("sandbox", t("console.sandbox"))}${link("production", t("console.production"))}</ul></nav>`;
}

function statusClass(status: number): string {
  return status >= 500 ? "status-5xx" : status === 429 ? "status-429" : status >= 400 ? "status-4xx" : "status-2xx";
}

export async function requestLogPage(visit: Visit, appId: string): Promise<Reply> {
  const { t, locale } = visit;
  return withApp(visit, visit.api("getDeveloperApp", { appId }), async (app) => {
    const name = app.value.app!.name;
    const environment = environmentOf(visit);
    const filters = readLogFilters(visit);
    const refused = Object.keys(filters.errors).length > 0;
    // A filter typed wrong is said beside its field; the list is then not asked for (it would not be what was meant).
    const listed = refused
      ? undefined
      : await visit.api("listAppRequestLog", {
          appId,
          environment: wire(environment),
          ...filters.request,
          limit: 1000,
        });
    const base = `/apps/${appId}/requests`;
    const filtersHtml = filtersForm(visit, base, environment, filters);
    const entries: RequestLogEntry[] = listed?.ok ? listed.value.entries : [];
    const rows = entries.map(
      (entry) => html`<tr>
<td>${moment(Number(entry.atMs), locale)}</td>
<td class="ltr"><code>${entry.method}</code> <code>${entry.path}</code></td>
<td><span class="status ${statusClass(entry.status)}">${entry.status}</span>${entry.errorCode ? html` <code class="ltr error-code">${entry.errorCode}</code>` : ""}</td>
<td class="ltr">${Number(entry.companyId) > 0 ? String(entry.companyId) : "–"}</td>
<td class="ltr"><bdi>${millisecondsText(locale, entry.latencyMs)}</bdi></td>
<td><a href="${base}/${String(entry.id)}" aria-label="${t("console.detailsOf", { id: String(entry.id) })}">${t("console.details")}</a></td>
</tr>`,
    );
    const table =
      entries.length === 0
        ? html`<p>${t("console.noRequests")}</p>`
        : html`<div class="table-wrap" role="region" aria-labelledby="log-caption" tabindex="0"><table class="log-table"><caption id="log-caption">${t("console.requestLogCaption", { count: entries.length })}</caption>
<thead><tr><th scope="col">${t("console.colTime")}</th><th scope="col">${t("console.colRequest")}</th><th scope="col">${t("console.colStatus")}</th><th scope="col">${t("console.colMerchant")}</th><th scope="col">${t("console.colLatency")}</th><th scope="col"><span class="visually-hidden">${t("console.details")}</span></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
    const body = html`<p><a href="/apps/${appId}">${t("console.backToApp", { name })}</a> · <a href="/apps/${appId}/usage?environment=${environment}">${t("console.usageLink")}</a></p>
<p class="lead">${t("console.requestLogIntro")}</p>
${environmentSwitch(visit, base, environment)}
<section class="card" aria-label="${t("console.filters")}">${filtersHtml}</section>
${!listed || listed.ok ? "" : alert("error", errorText(listed.error, locale, t))}
${listed ? html`<section class="card" aria-labelledby="log-heading"><h2 id="log-heading">${t("console.requestLogHeading", { environment: environment === "production" ? t("console.production") : t("console.sandbox") })}</h2>${table}</section>` : ""}`;
    return visit.page(t("console.requestLogTitle", { name }), body, { status: refused ? 400 : 200 });
  });
}

export async function requestEntryPage(visit: Visit, appId: string, id: string): Promise<Reply> {
  const { t, locale } = visit;
  const found = await visit.api("getAppRequestLogEntry", { appId, id: Number(id) });
  if (!found.ok) {
    return visit.page(
      t("console.requestTitle", { id }),
      html`${alert("error", errorText(found.error, locale, t))}<p><a href="/apps/${appId}/requests">${t("console.backToLog")}</a></p>`,
      { status: found.error.status },
    );
  }
  const entry = found.value.entry!;
  const environment: EnvironmentName = found.value.environment === Environment.PRODUCTION ? "production" : "sandbox";
  let pretty = entry.errorBody;
  try {
    if (pretty) pretty = JSON.stringify(JSON.parse(pretty), null, 2);
  } catch {
    // Kept as stored.
  }
  const body = html`<p><a href="/apps/${appId}/requests?environment=${environment}">${t("console.backToLog")}</a></p>
<section class="card" aria-labelledby="call-heading"><h2 id="call-heading">${t("console.callFacts")}</h2>
<dl class="facts">
<dt>${t("console.colTime")}</dt><dd>${moment(Number(entry.atMs), locale)}</dd>
<dt>${t("console.environment")}</dt><dd>${environment === "production" ? t("console.production") : t("console.sandbox")}</dd>
<dt>${t("console.colRequest")}</dt><dd class="ltr"><code>${entry.method}</code> <code>${entry.path}</code></dd>
<dt>${t("console.colStatus")}</dt><dd><span class="status ${statusClass(entry.status)}">${entry.status}</span>${entry.errorCode ? html` <code class="ltr">${entry.errorCode}</code>` : ""}</dd>
<dt>${t("console.colMerchant")}</dt><dd class="ltr">${Number(entry.companyId) > 0 ? String(entry.companyId) : "–"}</dd>
<dt>${t("console.colCorrelation")}</dt><dd class="ltr"><code>${entry.correlationId}</code></dd>
<dt>${t("console.colLatency")}</dt><dd><bdi>${millisecondsText(locale, entry.latencyMs)}</bdi></dd>
</dl></section>
<section class="card" aria-labelledby="body-heading"><h2 id="body-heading">${t("console.errorBody")}</h2>
${pretty ? html`<pre tabindex="0" aria-labelledby="body-heading"><code>${jsonSample(pretty)}</code></pre>` : html`<p>${t("console.noErrorBody")}</p>`}</section>`;
  return visit.page(t("console.requestTitle", { id }), body);
}

export async function usagePage(visit: Visit, appId: string): Promise<Reply> {
  const { t, locale } = visit;
  return withApp(visit, visit.api("getDeveloperApp", { appId }), async (app) => {
    const name = app.value.app!.name;
    const environment = environmentOf(visit);
    const usage = await visit.api("getAppUsage", { appId, environment: wire(environment) });
    if (!usage.ok)
      return visit.page(t("console.usageTitle", { name }), alert("error", errorText(usage.error, locale, t)), {
        status: usage.error.status,
      });
    const value = usage.value;
    const from = Number(value.fromMs);
    // The table: one row per hour with calls (UTC), its requests, its busiest minute and its 429s.
    const hours = new Map<number, { requests: number; peak: number; limited: number }>();
    for (const minute of value.minutes) {
      const hour = Number(minute.minuteMs) - (Number(minute.minuteMs) % 3600_000);
      const row = hours.get(hour) ?? { requests: 0, peak: 0, limited: 0 };
      row.requests += minute.requests;
      row.peak = Math.max(row.peak, minute.requests);
      row.limited += minute.limited;
      hours.set(hour, row);
    }
    const totals = value.minutes.reduce(
      (sum, minute) => ({ requests: sum.requests + minute.requests, limited: sum.limited + minute.limited }),
      { requests: 0, limited: 0 },
    );
    const hourText = (ms: number) => momentText(locale, ms, { year: false });
    const limit = number(value.limitPerMinute, locale);
    const chartWords = {
      title: t("console.usageChartTitle", { limit }),
      limit: t("console.usageLimitLine", { limit }),
      limitAbove: t("console.usageLimitAbove", { limit }),
    };
    const table =
      hours.size === 0
        ? html`<p>${t("console.noUsage")}</p>`
        : html`<div class="table-wrap" role="region" aria-labelledby="usage-caption" tabindex="0"><table><caption id="usage-caption">${t("console.usageTableCaption")}</caption>
<thead><tr><th scope="col">${t("console.usageHour")}</th><th scope="col">${t("console.usageRequests")}</th><th scope="col">${t("console.usagePeak")}</th><th scope="col">${t("console.usageLimited")}</th></tr></thead>
<tbody>${[...hours].sort((a, b) => a[0] - b[0]).map(([hour, row]) => html`<tr><th scope="row"><time datetime="${new Date(hour).toISOString()}"><bdi>${hourText(hour)}</bdi></time></th><td>${number(row.requests, locale)}</td><td>${number(row.peak, locale)}</td><td>${row.limited > 0 ? html`<strong class="status status-429">${number(row.limited, locale)}</strong>` : number(0, locale)}</td></tr>`)}</tbody></table></div>`;
    const body = html`<p><a href="/apps/${appId}">${t("console.backToApp", { name })}</a> · <a href="/apps/${appId}/requests?environment=${environment}">${t("console.requestLogLink")}</a></p>
<p class="lead">${t("console.usageIntro", { limit: number(value.limitPerMinute, locale) })}</p>
${environmentSwitch(visit, `/apps/${appId}/usage`, environment)}
<section class="card" aria-labelledby="chart-heading"><h2 id="chart-heading">${t("console.usageChartHeading")}</h2>
<dl class="facts"><dt>${t("console.usageRequests")}</dt><dd>${number(totals.requests, locale)}</dd><dt>${t("console.usageLimited")}</dt><dd>${number(totals.limited, locale)}</dd><dt>${t("console.usageWindow")}</dt><dd>${moment(from, locale, false)} – ${moment(Number(value.toMs), locale, false)}</dd></dl>
<figure class="chart">${usageChart(value, locale, chartWords)}
<figcaption><span class="legend legend-requests">${t("console.usageLegendRequests")}</span> <span class="legend legend-limited">${t("console.usageLegendLimited")}</span> <span class="legend legend-limit">${t("console.usageLegendLimit")}</span></figcaption></figure>
</section>
<section class="card" aria-labelledby="usage-table-heading"><h2 id="usage-table-heading">${t("console.usageTableHeading")}</h2>${table}</section>`;
    return visit.page(t("console.usageTitle", { name }), body);
  });
}
