// A sandbox merchant's menu in the console (/organizations/{org}/sandbox-merchants/{company}/menu, linked from the
// merchant's page): per store its online ordering (pause, optionally for a while and with a reason, or resume) and
// its opening hours (shown, and edited a line a day); the menu's items a page at a time with their availability in
// one store (sell out, optionally for a while, or make available); and the catalogue events that went out to the
// organization's sandbox webhook endpoints. Each change is the region's own write (./sandbox-menu-desk.ts), so it
// has the API's rules and emits the API's events; who may see and change is the ConsoleService's (the merchant one
// of the organization's sandbox merchants; changing needs a role that manages sandbox merchants). A form's answer is
// this page again (./sandbox-menu-forms.ts). docs/decisions.md, "Console site", "The sandbox menu page".
import type { Item, Store } from "../../gen/partnerapi/v1/data_service_pb.js";
import { eventTypes } from "../events/index.js";
import { messageFor } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import type { MerchantEvent } from "../webhook/index.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import { rightsOf } from "./labels.js";
import type { Outcome } from "./region-call.js";
import { eventsTable, itemRow, storeCard, type MenuRefusal, type MenuView } from "./sandbox-menu-parts.js";
import type { SandboxMenuDesk } from "./sandbox-menu-desk.js";
import { isReply, merchantOf } from "./sandbox-orders.js";
import { alert } from "./ui.js";
import type { Problem, Reply, Visit } from "./visit.js";

/** The catalogue's event types: what the page lists of the events that went out. */
export const menuEventTypes = eventTypes.filter((type) => /^(item|category|store)\./.test(type));
/** Events the page shows: the newest. */
export const menuEventsShown = 20;

/** The events of a merchant that went out to the organization's sandbox endpoints (src/webhook/merchant-events.ts). */
export type MerchantEventsReader = (query: {
  organizationId: number;
  companyId: number;
  types: readonly string[];
  limit: number;
}) => Promise<MerchantEvent[]>;

export interface MenuTools {
  desk: SandboxMenuDesk;
  events: MerchantEventsReader;
  clock: Clock;
}

/** What a form's answer adds to the page: what changed, or the refusal. */
export interface MenuAnswer {
  notice?: string;
  refused?: MenuRefusal;
}

const cursorPattern = /^[A-Za-z0-9_-]{1,256}$/;

/** GET .../menu (?store=&cursor= choose the item list's store and page), and every form's answer. */
export async function sandboxMenuPage(
  visit: Visit,
  tools: MenuTools,
  organizationId: number,
  companyId: number,
  answer: MenuAnswer = {},
): Promise<Reply> {
  const { t, locale } = visit;
  const found = await merchantOf(visit, organizationId, companyId);
  if (isReply(found)) return found;
  const { merchant, role } = found;
  const name = merchant.name || String(merchant.companyId);
  const merchantPath = `/organizations/${organizationId}/sandbox-merchants/${companyId}`;
  const [stores, events] = await Promise.all([
    tools.desk.stores(merchant.region, companyId, locale),
    tools.events({ organizationId, companyId, types: menuEventTypes, limit: menuEventsShown }),
  ]);
  const storeList = stores.ok ? stores.value : [];
  // A form carries the view it was posted from, so its answer lists the same store's items, on the same page.
  const from = visit.method === "POST" ? visit.form : visit.query;
  const wanted = Number(from.get(visit.method === "POST" ? "itemsStore" : "store"));
  const itemsStore = storeList.find((store) => Number(store.id) === wanted) ?? storeList[0];
  const typedCursor = from.get("cursor") ?? "";
  const view: MenuView = {
    base: `${merchantPath}/menu`,
    canChange: rightsOf(role).manageApps,
    itemsStore: itemsStore ? Number(itemsStore.id) : 0,
    cursor: cursorPattern.test(typedCursor) ? typedCursor : undefined,
    refused: answer.refused,
  };
  const items = itemsStore
    ? await tools.desk.items(merchant.region, companyId, view.itemsStore, view.cursor, locale)
    : undefined;
  const refused = answer.refused;
  // A refusal whose store card or item row the page does not show is said above the stores.
  const shown =
    refused &&
    (refused.form === "availability"
      ? items?.ok === true && items.value.items.some((item) => Number(item.id) === refused.itemId)
      : storeList.some((store) => Number(store.id) === refused.storeId));
  const orphan = refused?.general && !shown ? alert("error", html`<p>${refused.general}</p>`) : "";
  const storesPart = !stores.ok
    ? alert("error", messageFor(stores.error.code, stores.error.params, locale))
    : storeList.length === 0
      ? html`<p>${t("console.noStores")}</p>`
      : storeList.map((store) => storeCard(visit, view, store));
  const body = html`${answer.notice ? alert("ok", answer.notice) : ""}<p><a href="${merchantPath}">${t("console.backToMerchant", { name })}</a></p>
<p class="lead">${t("console.menuIntro")}</p>
${view.canChange ? "" : html`<p class="muted">${t("console.menuViewerNote")}</p>`}
${orphan}${storesPart}
${itemsStore ? itemsSection(visit, view, storeList, itemsStore, items!) : ""}
<section class="card" aria-labelledby="events-heading"><h2 id="events-heading">${t("console.menuEventsHeading")}</h2>
<p>${t("console.menuEventsExplain", { count: menuEventsShown })}</p>
${events.length === 0 ? html`<p>${t("console.menuNoEvents")}</p>` : eventsTable(visit, events)}</section>`;
  return visit.page(t("console.menuTitle", { name }), body, {
    status: refused ? refused.status : 200,
    problems: refused ? problemsOf(refused, shown === true) : [],
  });
}

/** The error summary's entries: each control's message leading to it, a general one to its card or row. */
function problemsOf(refused: MenuRefusal, shown: boolean): Problem[] {
  const target = refused.form === "availability" ? `#item-${refused.itemId}` : `#store-${refused.storeId}`;
  return [
    ...Object.entries(refused.beside).map(([id, text]) => ({ text, href: `#${id}` })),
    ...(refused.general ? [{ text: refused.general, ...(shown ? { href: target } : {}) }] : []),
  ];
}

/** The item list of one store: a switch between the stores, the page of items, the way to the next page. */
function itemsSection(
  visit: Visit,
  view: MenuView,
  stores: Store[],
  store: Store,
  items: Outcome<{ items: Item[]; nextCursor?: string }>,
): SafeHtml {
  const { t, locale } = visit;
  const storeLink = (candidate: Store) =>
    html`<li><a href="${view.base}?store=${String(candidate.id)}#items-heading"${Number(candidate.id) === view.itemsStore ? raw(' aria-current="page"') : ""}><bdi>${candidate.name}</bdi></a></li>`;
  const switcher =
    stores.length > 1
      ? html`<nav class="tabs" aria-label="${t("console.itemsStoreSwitch")}"><ul>${stores.map(storeLink)}</ul></nav>`
      : "";
  const here = `${view.base}?store=${String(store.id)}`;
  const paging = items.ok
    ? html`<p class="paging">${view.cursor ? html`<a href="${here}#items-heading">${t("console.itemsFirst")}</a>` : ""}${view.cursor && items.value.nextCursor ? " · " : ""}${items.value.nextCursor ? html`<a href="${here}&amp;cursor=${items.value.nextCursor}#items-heading">${t("console.itemsNext")}</a>` : ""}</p>`
    : "";
  const list = !items.ok
    ? alert("error", messageFor(items.error.code, items.error.params, locale))
    : items.value.items.length === 0
      ? html`<p>${t("console.noItems")}</p>`
      : html`<ul class="list menu-items">${items.value.items.map((item) => itemRow(visit, view, item))}</ul>`;
  return html`<section class="card" aria-labelledby="items-heading"><h2 id="items-heading">${t("console.itemsHeading", { store: store.name })}</h2>
${switcher}<p>${t("console.itemsExplain")}</p>${list}${paging}</section>`;
}
