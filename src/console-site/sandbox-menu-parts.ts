// The parts of the sandbox menu page (./sandbox-menu.ts): a store's card (its online ordering with the pause or
// resume form, its opening hours with the form that edits them), the item list of one store with each item's
// availability form, and the table of the events that went out. Every per-row form sits behind one action (a
// <details>), open when that form was refused, so the page stays short on a phone.
import { type Item, OnlineOrderingStatus, type Store } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { MerchantEvent } from "../webhook/index.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import { momentText } from "../web/i18n.js";
import { moment } from "./request-log-pages.js";
import { amount } from "./sandbox-orders.js";
import { dayLine, weekdays } from "./sandbox-menu-hours.js";
import { alert, button, field, postForm } from "./ui.js";
import type { Visit } from "./visit.js";

/** Longest pause or sell-out the page offers, in minutes (a week); empty: until changed back. */
export const maxMenuMinutes = 10_080;
/** The pause reason's length limit (OnlineOrderingChange.reason). */
export const maxReasonLength = 200;

/** A refused form of the page: which one, what is said beside which control (by id), and what is said above it. */
export interface MenuRefusal {
  form: "ordering" | "hours" | "availability";
  storeId: number;
  itemId?: number;
  beside: Record<string, string>;
  general?: string;
  code?: string;
  status: number;
}

/** Where the page is: its path, the store whose items it lists and the page of them, and a refused form. */
export interface MenuView {
  base: string;
  canChange: boolean;
  itemsStore: number;
  cursor: string | undefined;
  refused: MenuRefusal | undefined;
}

const mineFor = (view: MenuView, form: MenuRefusal["form"], storeId: number, itemId?: number) =>
  view.refused &&
  view.refused.form === form &&
  view.refused.storeId === storeId &&
  (itemId === undefined || view.refused.itemId === itemId)
    ? view.refused
    : undefined;

/** What the developer typed in `name`, when this form was the refused one; else `fallback`. */
const typedOr = (visit: Visit, mine: MenuRefusal | undefined, name: string, fallback: string) =>
  mine ? (visit.form.get(name) ?? fallback) : fallback;

/** The hidden fields that bring the answer back to the same view of the items. */
const viewFields = (view: MenuView) => ({ itemsStore: String(view.itemsStore), cursor: view.cursor });

function refusalAlert(visit: Visit, mine: MenuRefusal | undefined): SafeHtml | "" {
  if (!mine?.general) return "";
  return alert(
    "error",
    html`<p>${mine.general}</p>${mine.code ? html`<p class="hint">${visit.t("common.errorCode", { code: mine.code })}</p>` : ""}`,
  );
}

function orderingFacts(visit: Visit, store: Store): SafeHtml {
  const { t, locale } = visit;
  const ordering = store.onlineOrdering;
  const paused = ordering?.status === OnlineOrderingStatus.PAUSED;
  const until = paused && ordering?.pausedUntil ? Date.parse(ordering.pausedUntil) : undefined;
  const state = paused
    ? html`<span class="badge">${t("console.storePaused")}</span>${until === undefined ? "" : html` · ${t("console.storePausedUntil", { time: momentText(locale, until, { seconds: false, year: false }) })}`}${ordering?.reason ? html` · <bdi>${ordering.reason}</bdi>` : ""}`
    : html`<span class="badge">${t("console.storeAccepting")}</span>`;
  return html`<dl class="facts"><dt>${t("console.storeOnlineOrdering")}</dt><dd>${state}</dd>
<dt>${t("console.storeTimeZone")}</dt><dd class="ltr">${store.timeZone || "—"}</dd></dl>`;
}

function orderingForm(visit: Visit, view: MenuView, store: Store): SafeHtml {
  const { t } = visit;
  const id = String(store.id);
  const mine = mineFor(view, "ordering", Number(store.id));
  const paused = store.onlineOrdering?.status === OnlineOrderingStatus.PAUSED;
  const action = `${view.base}/stores/${id}/online-ordering`;
  const name = store.name;
  const form = paused
    ? postForm(
        action,
        visit.csrf,
        html`<div class="actions">${button(t("console.storeResume"), { ariaLabel: `${t("console.storeResume")}: ${name}` })}</div>`,
        { hidden: { ...viewFields(view), action: "resume" } },
      )
    : postForm(
        action,
        visit.csrf,
        html`${field({
          label: t("console.pauseMinutesLabel"),
          name: "minutes",
          type: "number",
          id: `pause-minutes-${id}`,
          value: typedOr(visit, mine, "minutes", ""),
          hint: t("console.pauseMinutesHint", { max: maxMenuMinutes }),
          error: mine?.beside[`pause-minutes-${id}`],
        })}${field({
          label: t("console.pauseReasonLabel"),
          name: "reason",
          id: `pause-reason-${id}`,
          value: typedOr(visit, mine, "reason", ""),
          hint: t("console.pauseReasonHint", { max: maxReasonLength }),
          error: mine?.beside[`pause-reason-${id}`],
        })}<div class="actions">${button(t("console.storePause"), { kind: "danger", ariaLabel: `${t("console.storePause")}: ${name}` })}</div>`,
        { hidden: { ...viewFields(view), action: "pause" } },
      );
  return html`<details class="row-actions"${mine ? raw(" open") : ""}><summary>${t("console.storePauseSummary")}<span class="visually-hidden">: <bdi>${name}</bdi></span></summary>${form}</details>`;
}

function hoursList(visit: Visit, store: Store): SafeHtml {
  const { t } = visit;
  if (!store.openingHours) return html`<p>${t("console.hoursNotPublished")}</p>`;
  const rows = weekdays.map(({ day, label }) => {
    const line = dayLine(store, day);
    return html`<dt>${t(label)}</dt><dd>${line ? html`<span class="ltr">${line.replace(/-/g, "\u2013")}</span>` : t("console.hoursClosed")}</dd>`;
  });
  const exceptions = store.openingHours.exceptions.length;
  return html`<dl class="facts hours">${rows}</dl>${exceptions > 0 ? html`<p class="hint">${t("console.hoursExceptionsKept", { count: exceptions })}</p>` : ""}`;
}

function hoursForm(visit: Visit, view: MenuView, store: Store): SafeHtml {
  const { t } = visit;
  const id = String(store.id);
  const mine = mineFor(view, "hours", Number(store.id));
  const fields = weekdays.map(({ day, slug, label }) =>
    field({
      label: t(label),
      name: slug,
      id: `hours-${id}-${slug}`,
      value: typedOr(visit, mine, slug, dayLine(store, day)),
      error: mine?.beside[`hours-${id}-${slug}`],
      ltr: true,
    }),
  );
  const form = postForm(
    `${view.base}/stores/${id}/hours`,
    visit.csrf,
    html`<p class="hint" id="hours-hint-${id}">${t("console.hoursHint")}</p>${fields}<div class="actions">${button(t("console.hoursSave"), { ariaLabel: `${t("console.hoursSave")}: ${store.name}` })}</div>`,
    { hidden: viewFields(view) },
  );
  return html`<details class="row-actions"${mine ? raw(" open") : ""}><summary>${t("console.hoursEditSummary")}<span class="visually-hidden">: <bdi>${store.name}</bdi></span></summary>${form}</details>`;
}

/** A store's card: its online ordering and its opening hours, each with its form for a role that may change them. */
export function storeCard(visit: Visit, view: MenuView, store: Store): SafeHtml {
  const { t } = visit;
  const id = String(store.id);
  const mine = view.refused?.storeId === Number(store.id) && view.refused.form !== "availability";
  return html`<section class="card" id="store-${id}" aria-labelledby="store-${id}-heading"><h2 id="store-${id}-heading"><bdi>${store.name}</bdi></h2>
${mine ? refusalAlert(visit, view.refused) : ""}${orderingFacts(visit, store)}${view.canChange ? orderingForm(visit, view, store) : ""}
<h3>${t("console.hoursHeading")}</h3>${hoursList(visit, store)}${view.canChange ? hoursForm(visit, view, store) : ""}</section>`;
}

function availabilityForm(visit: Visit, view: MenuView, item: Item): SafeHtml {
  const { t } = visit;
  const id = String(item.id);
  const mine = mineFor(view, "availability", view.itemsStore, Number(item.id));
  const action = `${view.base}/stores/${view.itemsStore}/items/${id}/availability`;
  const form =
    item.available === false
      ? postForm(
          action,
          visit.csrf,
          html`<div class="actions">${button(t("console.itemMakeAvailable"), { ariaLabel: `${t("console.itemMakeAvailable")}: ${item.name}` })}</div>`,
          { hidden: { ...viewFields(view), available: "true" } },
        )
      : postForm(
          action,
          visit.csrf,
          html`${field({
            label: t("console.soldOutMinutesLabel"),
            name: "minutes",
            type: "number",
            id: `soldout-minutes-${id}`,
            value: typedOr(visit, mine, "minutes", ""),
            hint: t("console.soldOutMinutesHint", { max: maxMenuMinutes }),
            error: mine?.beside[`soldout-minutes-${id}`],
          })}<div class="actions">${button(t("console.itemSellOut"), { kind: "danger", ariaLabel: `${t("console.itemSellOut")}: ${item.name}` })}</div>`,
          { hidden: { ...viewFields(view), available: "false" } },
        );
  return html`<details class="row-actions"${mine ? raw(" open") : ""}><summary>${t("console.itemChangeSummary")}<span class="visually-hidden">: <bdi>${item.name}</bdi></span></summary>${mine ? refusalAlert(visit, mine) : ""}${form}</details>`;
}

/** One item of the list: its name, price and availability in the listed store, and its form. */
export function itemRow(visit: Visit, view: MenuView, item: Item): SafeHtml {
  const { t, locale } = visit;
  const until = item.available === false && item.unavailableUntil ? Date.parse(item.unavailableUntil) : undefined;
  const state =
    item.available === false
      ? html`<span class="badge">${t("console.itemSoldOut")}</span>${until === undefined ? "" : html` · ${t("console.itemSoldOutUntil", { time: momentText(locale, until, { seconds: false, year: false }) })}`}`
      : html`<span class="badge">${t("console.itemAvailable")}</span>`;
  return html`<li id="item-${String(item.id)}"><p><strong><bdi>${item.name}</bdi></strong> · <bdi>${amount(item.priceMinor, item.currency, locale)}</bdi> · ${state}</p>${view.canChange ? availabilityForm(visit, view, item) : ""}</li>`;
}

/** The catalogue events that went out, newest first, in a region that scrolls sideways on a narrow screen. */
export function eventsTable(visit: Visit, events: MerchantEvent[]): SafeHtml {
  const { t, locale } = visit;
  const rows = events.map((event) => {
    const resource = event.resource
      ? html`<bdi>${event.resource.name}</bdi> <span class="ltr">#${event.resource.id}</span>${event.storeId ? html` · ${t("console.eventInStore", { store: event.storeId })}` : ""}`
      : "—";
    return html`<tr><td><code>${event.type}</code></td><td>${moment(event.occurredAt.getTime(), locale)}</td><td>${resource}</td><td>${t("console.eventDeliveries", { succeeded: event.succeeded, failed: event.failed, count: event.endpoints })}</td></tr>`;
  });
  return html`<div class="table-wrap" role="region" aria-labelledby="events-caption" tabindex="0"><table class="menu-events"><caption id="events-caption">${t("console.menuEventsCaption")}</caption><thead><tr><th scope="col">${t("console.eventColumn")}</th><th scope="col">${t("console.eventTimeColumn")}</th><th scope="col">${t("console.eventResourceColumn")}</th><th scope="col">${t("console.eventDeliveryColumn")}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}
