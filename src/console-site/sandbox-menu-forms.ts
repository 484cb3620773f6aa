// The forms of the sandbox menu page (./sandbox-menu.ts), each answered in place: the page again with what changed
// (as the region now has it) or with the refusal beside its control and in the error summary. A form is read
// strictly before anything is sent; the region's write is one transaction with its event, so a refused form changes
// nothing. docs/decisions.md, "Console site", "The sandbox menu page".
import type { Store } from "../../gen/partnerapi/v1/data_service_pb.js";
import { messageFor } from "../errors/index.js";
import { momentText, type MessageKey } from "../web/i18n.js";
import { rightsOf } from "./labels.js";
import { refusal, type RegionError } from "./region-call.js";
import { hoursOfForm, refusedDay, weekdays } from "./sandbox-menu-hours.js";
import { maxMenuMinutes, maxReasonLength, type MenuRefusal } from "./sandbox-menu-parts.js";
import { sandboxMenuPage, type MenuTools } from "./sandbox-menu.js";
import type { OnlineOrderingWish } from "./sandbox-menu-desk.js";
import { isReply, merchantOf } from "./sandbox-orders.js";
import type { Reply, Visit } from "./visit.js";

interface Target {
  organizationId: number;
  companyId: number;
  storeId: number;
}

type Refuse = (refusal: Omit<MenuRefusal, "form" | "storeId" | "itemId">) => Promise<Reply>;

/** A region's refusal as the page says it above the form (its code under it). */
function regionWords(visit: Visit, error: RegionError): Omit<MenuRefusal, "form" | "storeId" | "itemId"> {
  // The codes that name a request field (`id`, `itemId`): said as the page's words, not the API's field names.
  const own: Partial<Record<string, MessageKey>> = {
    "partner.store_not_found": "console.menuStoreUnknown",
    "partner.item_not_found": "console.menuItemUnknown",
  };
  const key = own[error.code];
  return {
    beside: {},
    general: key ? visit.t(key) : messageFor(error.code, error.params, visit.locale),
    code: error.code,
    status: error.status,
  };
}

/** A field's refusal of the page's own reading: said beside its control, 400. */
const besideOnly = (beside: Record<string, string>) => ({ beside, status: 400 });

/**
 * The steps every form shares: the merchant (one of the organization's, as the ConsoleService answers the caller),
 * the role that may change it, the store as its region has it now; then `work`, or the refusal on the page.
 */
async function withStore(
  visit: Visit,
  tools: MenuTools,
  target: Target,
  form: { form: MenuRefusal["form"]; itemId?: number },
  work: (context: { region: string; store: Store; refuse: Refuse }) => Promise<Reply>,
): Promise<Reply> {
  const { organizationId, companyId, storeId } = target;
  const found = await merchantOf(visit, organizationId, companyId);
  if (isReply(found)) return found;
  const refuse: Refuse = (refused) =>
    sandboxMenuPage(visit, tools, organizationId, companyId, { refused: { ...form, storeId, ...refused } });
  // The ConsoleService's rule for sandbox merchants: a viewer sees the menu, never changes it.
  if (!rightsOf(found.role).manageApps)
    return refuse(regionWords(visit, refusal("developer.insufficient_org_role").error));
  const store = await tools.desk.store(found.merchant.region, companyId, storeId, visit.locale);
  if (!store.ok) return refuse(regionWords(visit, store.error));
  return work({ region: found.merchant.region, store: store.value, refuse });
}

/** A minutes field: undefined when left empty, NaN when not a whole number from 1 to the page's maximum. */
function minutesOf(text: string | null): number | undefined {
  const value = (text ?? "").trim();
  if (value === "") return undefined;
  const minutes = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  return minutes >= 1 && minutes <= maxMenuMinutes ? minutes : Number.NaN;
}

const shortTime = (visit: Visit, at: string) =>
  momentText(visit.locale, Date.parse(at), { seconds: false, year: false });

/** POST .../menu/stores/{store}/online-ordering: `action` pause (minutes, reason: optional) or resume. */
export function setMenuOnlineOrdering(visit: Visit, tools: MenuTools, target: Target): Promise<Reply> {
  const { t } = visit;
  return withStore(visit, tools, target, { form: "ordering" }, async ({ region, store, refuse }) => {
    const id = String(target.storeId);
    const action = visit.form.get("action");
    let wish: OnlineOrderingWish;
    if (action === "resume") wish = { paused: false };
    else if (action === "pause") {
      const minutes = minutesOf(visit.form.get("minutes"));
      const reason = (visit.form.get("reason") ?? "").trim();
      const beside: Record<string, string> = {};
      if (Number.isNaN(minutes))
        beside[`pause-minutes-${id}`] = t("console.menuMinutesInvalid", {
          field: t("console.pauseMinutesLabel"),
          max: maxMenuMinutes,
        });
      if ([...reason].length > maxReasonLength)
        beside[`pause-reason-${id}`] = t("console.pauseReasonTooLong", { max: maxReasonLength });
      if (Object.keys(beside).length > 0) return refuse(besideOnly(beside));
      wish = {
        paused: true,
        ...(minutes === undefined ? {} : { pausedUntil: new Date(tools.clock.now() + minutes * 60_000).toISOString() }),
        ...(reason ? { reason } : {}),
      };
    } else return refuse({ beside: {}, general: t("console.menuFormInvalid"), status: 400 });
    const set = await tools.desk.setOnlineOrdering(region, target.companyId, target.storeId, wish, visit.locale);
    if (!set.ok) return refuse(regionWords(visit, set.error));
    const until = set.value.onlineOrdering?.pausedUntil;
    const notice = !wish.paused
      ? t("console.storeResumedNotice", { store: store.name })
      : until
        ? t("console.storePausedUntilNotice", { store: store.name, time: shortTime(visit, until) })
        : t("console.storePausedNotice", { store: store.name });
    return sandboxMenuPage(visit, tools, target.organizationId, target.companyId, { notice });
  });
}

/** POST .../menu/stores/{store}/hours: a line a weekday (monday ... sunday); the dated exceptions kept. */
export function setMenuOpeningHours(visit: Visit, tools: MenuTools, target: Target): Promise<Reply> {
  const { t } = visit;
  return withStore(visit, tools, target, { form: "hours" }, async ({ region, store, refuse }) => {
    const fieldId = (slug: string) => `hours-${target.storeId}-${slug}`;
    const labelOf = (slug: string) => t(weekdays.find((day) => day.slug === slug)!.label);
    const asked = hoursOfForm(visit.form, store);
    if (!asked.ok)
      return refuse(
        besideOnly(
          Object.fromEntries(
            asked.badDays.map((slug) => [fieldId(slug), t("console.hoursFormat", { day: labelOf(slug) })]),
          ),
        ),
      );
    const set = await tools.desk.setOpeningHours(region, target.companyId, target.storeId, asked.hours, visit.locale);
    if (!set.ok) {
      // The region's check names the first offending range: said at its day, in the day's words.
      const day = refusedDay(set.error, asked.sentDays);
      if (!day) return refuse(regionWords(visit, set.error));
      const words = messageFor(set.error.code, { ...set.error.params, field: labelOf(day) }, visit.locale);
      return refuse({ beside: { [fieldId(day)]: words }, code: set.error.code, status: set.error.status });
    }
    return sandboxMenuPage(visit, tools, target.organizationId, target.companyId, {
      notice: t("console.hoursSavedNotice", { store: store.name }),
    });
  });
}

/** POST .../menu/stores/{store}/items/{item}/availability: `available` true, or false with optional minutes. */
export function setMenuItemAvailability(
  visit: Visit,
  tools: MenuTools,
  target: Target & { itemId: number },
): Promise<Reply> {
  const { t } = visit;
  const form = { form: "availability" as const, itemId: target.itemId };
  return withStore(visit, tools, target, form, async ({ region, store, refuse }) => {
    const available = visit.form.get("available");
    if (available !== "true" && available !== "false")
      return refuse({ beside: {}, general: t("console.menuFormInvalid"), status: 400 });
    const minutes = available === "false" ? minutesOf(visit.form.get("minutes")) : undefined;
    if (Number.isNaN(minutes))
      return refuse(
        besideOnly({
          [`soldout-minutes-${target.itemId}`]: t("console.menuMinutesInvalid", {
            field: t("console.soldOutMinutesLabel"),
            max: maxMenuMinutes,
          }),
        }),
      );
    const wish = {
      available: available === "true",
      ...(minutes === undefined
        ? {}
        : { unavailableUntil: new Date(tools.clock.now() + minutes * 60_000).toISOString() }),
    };
    const set = await tools.desk.setAvailability(
      region,
      target.companyId,
      target.storeId,
      target.itemId,
      wish,
      visit.locale,
    );
    if (!set.ok) return refuse(regionWords(visit, set.error));
    const item = set.value;
    const names = { item: item.name, store: store.name };
    const notice = wish.available
      ? t("console.itemAvailableNotice", names)
      : item.unavailableUntil
        ? t("console.itemSoldOutUntilNotice", { ...names, time: shortTime(visit, item.unavailableUntil) })
        : t("console.itemSoldOutNotice", names);
    return sandboxMenuPage(visit, tools, target.organizationId, target.companyId, { notice });
  });
}
