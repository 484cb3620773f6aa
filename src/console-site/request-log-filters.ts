// The request log's filters: status, merchant, a time range (UTC, from inclusive, until exclusive), the path's start,
// the method and the start of a correlation id. Read from the page's query (a GET form: a filtered log is a link one
// can share), each checked where it is typed and refused beside its field in the page's language, never sent on
// malformed; what reaches ListAppRequestLog is only what passed.
import { html, raw, type SafeHtml } from "../web/html.js";
import { field } from "./ui.js";
import type { Visit } from "./visit.js";

export const statusFilters = ["", "2xx", "4xx", "429", "5xx"] as const;
export const methodFilters = ["", "GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** What the form holds (as typed), what of it goes to the API, and the refusal of each field that was wrong. */
export interface LogFilters {
  typed: Record<"status" | "merchant" | "from" | "to" | "route" | "method" | "correlation", string>;
  request: {
    status: string;
    companyId: number;
    fromMs: number;
    toMs: number;
    pathPrefix: string;
    method: string;
    correlationId: string;
  };
  errors: Partial<Record<"merchant" | "from" | "to" | "route" | "correlation", string>>;
}

/** A `datetime-local` value ("2026-11-29T14:05", seconds optional) read as UTC; undefined when it is not one. */
export function utcMoment(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as number[];
  const ms = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  const back = new Date(ms);
  // 2026-02-30 would roll over to March: not a date that was typed.
  return back.getUTCMonth() === month! - 1 && back.getUTCDate() === day! && hour! < 24 && minute! < 60 ? ms : undefined;
}

export function readLogFilters(visit: Visit): LogFilters {
  const { t } = visit;
  const get = (name: string) => (visit.query.get(name) ?? "").trim();
  const typed = {
    status: statusFilters.find((value) => value !== "" && value === get("status")) ?? "",
    merchant: get("merchant"),
    from: get("from"),
    to: get("to"),
    route: get("route"),
    method: methodFilters.find((value) => value !== "" && value === get("method")) ?? "",
    correlation: get("correlation"),
  };
  const errors: LogFilters["errors"] = {};
  const companyId = /^[1-9]\d{0,15}$/.test(typed.merchant) ? Number(typed.merchant) : 0;
  if (typed.merchant !== "" && companyId === 0) errors.merchant = t("console.merchantFilterInvalid");
  const fromMs = typed.from === "" ? 0 : (utcMoment(typed.from) ?? -1);
  const toMs = typed.to === "" ? 0 : (utcMoment(typed.to) ?? -1);
  if (fromMs < 0) errors.from = t("console.timeFilterInvalid");
  if (toMs < 0) errors.to = t("console.timeFilterInvalid");
  else if (toMs > 0 && fromMs > 0 && toMs <= fromMs) errors.to = t("console.timeRangeBackwards");
  // A path as the log keeps it: from its first slash, printable ASCII (the query string is never part of it).
  if (typed.route !== "" && !/^\/[!-~]{0,299}$/.test(typed.route)) errors.route = t("console.routeFilterInvalid");
  if (typed.correlation !== "" && !/^[!-~]{1,128}$/.test(typed.correlation))
    errors.correlation = t("console.correlationFilterInvalid");
  return {
    typed,
    request: {
      status: typed.status,
      companyId,
      fromMs: Math.max(fromMs, 0),
      toMs: Math.max(toMs, 0),
      pathPrefix: errors.route ? "" : typed.route,
      method: typed.method,
      correlationId: errors.correlation ? "" : typed.correlation,
    },
    errors,
  };
}

/** Whether any filter narrows the list (the page then offers to clear them). */
export function anyFilter(filters: LogFilters): boolean {
  return Object.values(filters.typed).some((value) => value !== "");
}

function select(id: string, name: string, label: string, options: Array<[string, string]>, chosen: string): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label><select id="${id}" name="${name}">${options.map(
    ([value, text]) => html`<option value="${value}"${value === chosen ? raw(" selected") : ""}>${text}</option>`,
  )}</select></div>`;
}

/** The filters' GET form: the environment kept, every field with what was typed and its refusal beside it. */
export function filtersForm(visit: Visit, base: string, environment: string, filters: LogFilters): SafeHtml {
  const { t } = visit;
  const { typed, errors } = filters;
  const statusLabel: Record<(typeof statusFilters)[number], string> = {
    "": t("console.statusAll"),
    "2xx": t("console.status2xx"),
    "4xx": t("console.status4xx"),
    "429": t("console.status429"),
    "5xx": t("console.status5xx"),
  };
  const methods = methodFilters.map((value): [string, string] => [
    value,
    value === "" ? t("console.methodAll") : value,
  ]);
  const clear = anyFilter(filters)
    ? html` <a href="${base}?environment=${environment}">${t("console.clearFilters")}</a>`
    : "";
  return html`<form method="get" action="${base}" class="filters" aria-label="${t("console.filters")}">
<input type="hidden" name="environment" value="${environment}">
${select(
  "filter-status",
  "status",
  t("console.filterStatus"),
  statusFilters.map((value) => [value, statusLabel[value]]),
  typed.status,
)}
${select("filter-method", "method", t("console.filterMethod"), methods, typed.method)}
${field({ id: "filter-merchant", name: "merchant", label: t("console.filterMerchant"), value: typed.merchant, error: errors.merchant, ltr: true })}
${field({ id: "filter-from", name: "from", type: "datetime-local", label: t("console.filterFrom"), value: typed.from, error: errors.from, ltr: true })}
${field({ id: "filter-to", name: "to", type: "datetime-local", label: t("console.filterTo"), value: typed.to, error: errors.to, ltr: true })}
${field({ id: "filter-route", name: "route", label: t("console.filterRoute"), hint: t("console.filterRouteHint"), value: typed.route, error: errors.route, ltr: true })}
${field({ id: "filter-correlation", name: "correlation", label: t("console.filterCorrelation"), hint: t("console.filterCorrelationHint"), value: typed.correlation, error: errors.correlation, ltr: true })}
<div class="actions"><button type="submit" class="secondary">${t("console.applyFilters")}</button>${clear}</div>
</form>`;
}
