// A sandbox merchant's page in the console: the merchant, its recent online orders, and per order the moves its
// status allows (accept with a promised time, reject with a reason, ready, complete, cancel). A move is the sandbox
// helper's (POST /v1/sandbox/online-orders/{id}/status): DataService.MoveSandboxOnlineOrder of the merchant's region,
// called as a sandbox call, so it takes the one write path (src/data/order-changes.ts) with the same rules, history
// (actor `sandbox`) and webhook events. The region is reached through the same callers as the gateway's (in process,
// or the region's data role over gRPC): ./sandbox-order-desk.ts. Who may see and move: the ConsoleService decides it
// (the merchant must be one of the organization's sandbox merchants as ListOrganizationSandboxMerchants answers the
// caller; moving needs a role that manages sandbox merchants). docs/decisions.md, "Online orders (the data owner)".
import type { OrganizationRole } from "../../gen/partnerapi/v1/console_service_pb.js";
import type { Merchant } from "../../gen/partnerapi/v1/credential_service_pb.js";
import {
  OnlineOrderReason,
  OnlineOrderReasonSchema,
  type OnlineOrder,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { merchantReasons, orderMoves, type OrderMoveName } from "../data/index.js";
import { messageFor } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import { wireEnumName } from "../runtime/wire/index.js";
import { html, raw, type SafeHtml } from "../web/html.js";
import { momentText, type Locale, type MessageKey } from "../web/i18n.js";
import { rightsOf } from "./labels.js";
import { moment } from "./request-log-pages.js";
import { alert, button, field, postForm } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";
import { recentOrderCount, type OrderError, type SandboxOrderDesk, refusal } from "./sandbox-order-desk.js";

/** The promised time of an accept: minutes from now (default, and the bounds of the field). */
const promiseMinutes = { initial: 20, min: 1, max: 1440 } as const;

/** The console's words for a move: the form's `move` value, the lifecycle's move, the status it reaches. */
const pageMoves = {
  accept: { move: "accept", label: "console.orderAccept" },
  reject: { move: "reject", label: "console.orderReject" },
  ready: { move: "markReady", label: "console.orderMarkReady" },
  complete: { move: "complete", label: "console.orderComplete" },
  cancel: { move: "cancelByMerchant", label: "console.orderCancel" },
} as const satisfies Record<string, { move: OrderMoveName; label: MessageKey }>;
type PageMove = keyof typeof pageMoves;
const isPageMove = (value: string): value is PageMove => Object.hasOwn(pageMoves, value);

const statusKeys: Record<string, MessageKey> = {
  PENDING: "console.orderStatusPending",
  ACCEPTED: "console.orderStatusAccepted",
  REJECTED: "console.orderStatusRejected",
  READY: "console.orderStatusReady",
  COMPLETED: "console.orderStatusCompleted",
  CANCELLED: "console.orderStatusCancelled",
};
const reasonKeys: Record<string, MessageKey> = {
  ITEM_UNAVAILABLE: "console.reasonItemUnavailable",
  STORE_CLOSED: "console.reasonStoreClosed",
  TOO_BUSY: "console.reasonTooBusy",
  CANNOT_DELIVER: "console.reasonCannotDeliver",
  CUSTOMER_REQUEST: "console.reasonCustomerRequest",
  CUSTOMER_NO_SHOW: "console.reasonCustomerNoShow",
  OTHER: "console.reasonOther",
  TIMED_OUT: "console.reasonTimedOut",
  PARTNER_CANCELLED: "console.reasonPartnerCancelled",
};

export function orderStatusName(visit: Visit, status: string): string {
  return statusKeys[status] ? visit.t(statusKeys[status]!) : status;
}

function reasonName(visit: Visit, reason: OnlineOrderReason): string {
  const text = wireEnumName(OnlineOrderReasonSchema, reason);
  return text === undefined ? "" : reasonKeys[text] ? visit.t(reasonKeys[text]!) : text;
}

/** The moves the lifecycle allows the point of sale from `status`, in the page's order. */
function movesFrom(status: string): PageMove[] {
  return (Object.keys(pageMoves) as PageMove[]).filter((name) =>
    (orderMoves[pageMoves[name].move].from as readonly string[]).includes(status),
  );
}

/** An amount in minor units, in the currency's own decimals and the reader's language. */
export function amount(minor: bigint, currency: string, locale: Locale): string {
  try {
    const format = new Intl.NumberFormat(locale, { style: "currency", currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(Number(minor) / 10 ** digits);
  } catch {
    return `${minor} ${currency}`;
  }
}

/** A refused move, said in the order's card (`words`: the page's own wording rather than the code's message). */
export interface MoveRefusal {
  orderId: number;
  error: OrderError;
  words?: string;
}

export interface MerchantFound {
  merchant: Merchant;
  role: OrganizationRole;
  organizationName: string;
}

/** The organization's sandbox merchant `companyId` and the caller's role, or the page that says why not. */
export async function merchantOf(
  visit: Visit,
  organizationId: number,
  companyId: number,
): Promise<MerchantFound | Reply> {
  const { t, locale } = visit;
  const [orgs, merchants] = await Promise.all([
    visit.api("listDeveloperOrganizations"),
    visit.api("listOrganizationSandboxMerchants", { organizationId }),
  ]);
  if (!merchants.ok)
    return visit.page(t("console.organizationTitleUnknown"), alert("error", errorText(merchants.error, locale, t)), {
      status: merchants.error.status,
    });
  const organization = orgs.ok
    ? orgs.value.organizations.find((org) => Number(org.organizationId) === organizationId)
    : undefined;
  const merchant = merchants.value.merchants.find((candidate) => Number(candidate.companyId) === companyId);
  if (!organization || !merchant)
    return visit.page(t("console.merchantUnknownTitle"), alert("error", t("console.merchantUnknown")), {
      status: 404,
    });
  return { merchant, role: organization.role, organizationName: organization.name };
}

export const isReply = (value: MerchantFound | Reply): value is Reply => "status" in value;

/** GET /organizations/{id}/sandbox-merchants/{company}: the merchant and its recent orders, each with its moves. */
export async function sandboxMerchantPage(
  visit: Visit,
  desk: SandboxOrderDesk,
  organizationId: number,
  companyId: number,
  refused?: MoveRefusal,
): Promise<Reply> {
  const { t, locale } = visit;
  const found = await merchantOf(visit, organizationId, companyId);
  if (isReply(found)) return found;
  const { merchant, role } = found;
  const canMove = rightsOf(role).manageApps;
  const name = merchant.name || String(merchant.companyId);
  const orders = await desk.recent(merchant.region, companyId, locale);
  const base = `/organizations/${organizationId}/sandbox-merchants/${companyId}`;
  // Orders that still await the point of sale are cards with their moves; finished ones are rows of one table, so
  // twenty orders stay a short page on a phone (twenty cards were 10,000 px tall in Arabic at 375 px).
  const open = orders.ok ? orders.value.filter((order) => movesFrom(order.status).length > 0) : [];
  const finished = orders.ok ? orders.value.filter((order) => movesFrom(order.status).length === 0) : [];
  const list = !orders.ok
    ? alert("error", messageFor(orders.error.code, orders.error.params, locale))
    : orders.value.length === 0
      ? html`<p>${t("console.noOrders")}</p>`
      : html`<h3>${t("console.ordersOpenHeading")}</h3>${
          open.length === 0
            ? html`<p>${t("console.noOpenOrders")}</p>`
            : html`<ul class="list orders">${open.map((order) => orderCard(visit, base, order, canMove, refused))}</ul>`
        }${finished.length === 0 ? "" : finishedTable(visit, finished)}`;
  // A refusal about an order that has no card (finished since, or no longer listed) is said above the list.
  const orphan =
    refused && !open.some((order) => Number(order.id) === refused.orderId)
      ? alert(
          "error",
          html`<p>${t("console.orderHeading", { id: String(refused.orderId) })}</p>${refusalText(visit, refused.error, refused.words)}`,
        )
      : "";
  const body = html`${orders.ok ? movedNotice(visit, orders.value) : ""}<dl class="facts"><dt>${t("console.companyId")}</dt><dd class="ltr">${String(merchant.companyId)}</dd>
<dt>${t("console.country")}</dt><dd class="ltr">${merchant.country}</dd>
<dt>${t("console.state")}</dt><dd><span class="badge">${merchant.active ? t("console.active") : t("console.inactive")}</span></dd></dl>
<p><a href="/organizations/${organizationId}">${t("console.backToOrganization")}</a> · <a href="${base}/menu">${t("console.merchantMenuLink")}</a></p>
<section class="card" aria-labelledby="orders-heading"><h2 id="orders-heading">${t("console.ordersHeading")}</h2>
<p>${t("console.ordersExplain", { count: recentOrderCount })}</p>
${canMove ? "" : html`<p class="muted">${t("console.ordersViewerNote")}</p>`}
${orphan}${list}</section>`;
  // The summary names the order and leads to its card (when it has one).
  const problems = refused
    ? [
        {
          text: `${t("console.orderHeading", { id: String(refused.orderId) })}: ${refusalWords(visit, refused.error, refused.words)}`,
          href: orphan ? undefined : `#order-${refused.orderId}`,
        },
      ]
    : [];
  return visit.page(t("console.sandboxMerchantTitle", { name }), body, {
    status: refused ? refused.error.status : 200,
    problems,
  });
}

/** After a move (`?moved=<order>`): the order's status as the region has it now, and its promised time if accepted. */
function movedNotice(visit: Visit, orders: OnlineOrder[]): SafeHtml | "" {
  const { t, locale } = visit;
  const id = visit.query.get("moved") ?? "";
  const order = orders.find((candidate) => String(candidate.id) === id);
  if (!order) return "";
  const status = orderStatusName(visit, order.status);
  return alert(
    "ok",
    order.status === "ACCEPTED" && order.promisedFor
      ? t("console.orderMovedPromised", {
          id,
          status,
          time: momentText(locale, Date.parse(order.promisedFor), { seconds: false, year: false }),
        })
      : t("console.orderMoved", { id, status }),
  );
}

/** The finished orders (no move left): one row each, in a region that scrolls sideways on a narrow screen. */
function finishedTable(visit: Visit, orders: OnlineOrder[]): SafeHtml {
  const { t, locale } = visit;
  const rows = orders.map(
    (order) =>
      html`<tr id="order-${String(order.id)}"><th scope="row" class="ltr">${String(order.id)}</th><td><span class="badge">${orderStatusName(visit, order.status)}</span>${order.reason !== OnlineOrderReason.UNSPECIFIED ? html` · ${reasonName(visit, order.reason)}` : ""}</td><td><bdi>${amount(order.totalMinor, order.currency, locale)}</bdi></td><td>${order.customer?.name ? html`<bdi>${order.customer.name}</bdi>` : "—"}</td><td>${moment(Date.parse(order.updatedAt || order.placedAt), locale)}</td></tr>`,
  );
  return html`<div class="table-wrap" role="region" aria-labelledby="finished-caption" tabindex="0"><table class="finished-orders"><caption id="finished-caption">${t("console.ordersFinishedCaption")}</caption><thead><tr><th scope="col">${t("console.orderColumn")}</th><th scope="col">${t("console.orderStatus")}</th><th scope="col">${t("console.orderTotal")}</th><th scope="col">${t("console.orderCustomer")}</th><th scope="col">${t("console.orderUpdated")}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function orderCard(
  visit: Visit,
  base: string,
  order: OnlineOrder,
  canMove: boolean,
  refused: MoveRefusal | undefined,
): SafeHtml {
  const { t, locale } = visit;
  const id = String(order.id);
  const moves = canMove ? movesFrom(order.status) : [];
  const mine = refused && refused.orderId === Number(order.id) ? refused : undefined;
  const action = `${base}/orders/${id}/move`;
  const reasonSelect = (move: "reject" | "cancel") => {
    const fieldId = `${move}-reason-${id}`;
    return html`<div class="field"><label for="${fieldId}">${t("console.orderReasonLabel")}</label><select id="${fieldId}" name="reason">${merchantReasons.map(
      (reason) =>
        html`<option value="${reason}"${reason === "OTHER" ? html` selected` : ""}>${t(reasonKeys[reason]!)}</option>`,
    )}</select></div>`;
  };
  const form = (move: PageMove) => {
    const words = pageMoves[move];
    const extra =
      move === "accept"
        ? field({
            label: t("console.orderPromiseMinutes"),
            name: "minutes",
            type: "number",
            value: String(promiseMinutes.initial),
            id: `accept-minutes-${id}`,
            hint: t("console.orderPromiseHint"),
            required: true,
          })
        : move === "reject" || move === "cancel"
          ? reasonSelect(move)
          : "";
    return postForm(
      action,
      visit.csrf,
      html`${extra}<div class="actions">${button(t(words.label), {
        kind: move === "reject" || move === "cancel" ? "danger" : move === "accept" ? "primary" : "secondary",
        // The visible words first, then the order (WCAG 2.5.3: the name contains the label as shown).
        ariaLabel: `${t(words.label)}: ${t("console.orderHeading", { id })}`,
      })}</div>`,
      { className: "order-move", hidden: { move } },
    );
  };
  const facts = html`<dl class="facts">
<dt>${t("console.orderStatus")}</dt><dd><span class="badge">${orderStatusName(visit, order.status)}</span>${order.reason !== OnlineOrderReason.UNSPECIFIED ? html` · ${reasonName(visit, order.reason)}` : ""}</dd>
<dt>${t("console.orderTotal")}</dt><dd><bdi>${amount(order.totalMinor, order.currency, locale)}</bdi></dd>
<dt>${t("console.orderCustomer")}</dt><dd>${order.customer?.name ? html`<bdi>${order.customer.name}</bdi>` : "—"}</dd>
${order.externalReference ? html`<dt>${t("console.orderReference")}</dt><dd class="ltr">${order.externalReference}</dd>` : ""}
${order.promisedFor && order.status !== "PENDING" ? html`<dt>${t("console.orderPromised")}</dt><dd>${moment(Date.parse(order.promisedFor), locale, false)}</dd>` : ""}
<dt>${t("console.orderUpdated")}</dt><dd>${moment(Date.parse(order.updatedAt || order.placedAt), locale)}</dd></dl>`;
  // The moves' forms behind one action per order (a page of open orders stays short), open when one was refused.
  const next =
    moves.length > 0
      ? html`<details class="row-actions"${mine ? raw(" open") : ""}><summary>${t("console.orderMovesSummary", { id })}</summary><div class="order-moves">${moves.map(form)}</div></details>`
      : "";
  return html`<li id="order-${id}"><article aria-labelledby="order-${id}-heading"><h4 id="order-${id}-heading">${t("console.orderHeading", { id })}</h4>
${mine ? alert("error", refusalText(visit, mine.error, mine.words)) : ""}${facts}${next}</article></li>`;
}

/** A refusal in words: a move the order's status no longer allows names both statuses in the page's language. */
function refusalWords(visit: Visit, error: OrderError, words?: string): string {
  if (words) return words;
  return error.code === "partner.order_status_conflict"
    ? visit.t("console.orderMoveRefused", {
        status: orderStatusName(visit, error.params["status"] ?? ""),
        target: orderStatusName(visit, error.params["target"] ?? ""),
      })
    : messageFor(error.code, error.params, visit.locale);
}

/** The refusal with its code, in the order's card: a move the order's status no longer allows names both statuses in the page's language. */
function refusalText(visit: Visit, error: OrderError, words?: string): SafeHtml {
  const { t } = visit;
  return html`<p>${refusalWords(visit, error, words)}</p><p class="hint">${t("common.errorCode", { code: error.code })}</p>`;
}

/** POST .../orders/{order}/move: the move the form names, then back to the page (or the refusal in the order's card). */
export async function moveSandboxOrder(
  visit: Visit,
  desk: SandboxOrderDesk,
  clock: Clock,
  organizationId: number,
  companyId: number,
  orderId: number,
): Promise<Reply> {
  const { t } = visit;
  const found = await merchantOf(visit, organizationId, companyId);
  if (isReply(found)) return found;
  const refuse = (error: OrderError, words?: string) =>
    sandboxMerchantPage(visit, desk, organizationId, companyId, { orderId, error, ...(words ? { words } : {}) });
  // The ConsoleService's rule for sandbox merchants (manage_sandbox): a viewer sees the orders, never moves them.
  if (!rightsOf(found.role).manageApps) return refuse(refusal("developer.insufficient_org_role").error);
  const name = visit.form.get("move") ?? "";
  const reason = visit.form.get("reason") ?? "";
  const minutes = visit.form.get("minutes") ?? "";
  // A move the page cannot read (a reason or a time missing or wrong): the merchant's page again, the refusal in the
  // order's card (or above the list), never a bare error page.
  const invalid = () => refuse(refusal("developer.invalid_request").error, t("console.orderMoveInvalid"));
  if (!isPageMove(name)) return invalid();
  const move = orderMoves[pageMoves[name].move];
  const change: { status: string; reason?: string; promisedFor?: string } = { status: move.to };
  if (name === "reject" || name === "cancel") {
    if (!(merchantReasons as readonly string[]).includes(reason)) return invalid();
    change.reason = reason;
  }
  if (name === "accept") {
    const count = /^\d{1,4}$/.test(minutes.trim()) ? Number(minutes.trim()) : Number.NaN;
    if (!(count >= promiseMinutes.min && count <= promiseMinutes.max)) return invalid();
    change.promisedFor = new Date(clock.now() + count * 60_000).toISOString();
  }
  const moved = await desk.move(found.merchant.region, companyId, orderId, change, visit.locale);
  if (!moved.ok) return refuse(moved.error);
  return {
    status: 303,
    // The page says what happened (?moved=): the order's status as it is now, and its promised time.
    location: `/organizations/${organizationId}/sandbox-merchants/${companyId}?moved=${orderId}#order-${orderId}`,
  };
}
