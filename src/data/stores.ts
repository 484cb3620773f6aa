// The stores section of the DataService (data_service.proto): the partner's list and one store, and the point of
// sale's writes of a store's details and online ordering (with the sandbox helper that pauses as it would). A pause
// with an end reads ACCEPTING once that end has passed, so no timer has to resume it (docs/decisions.md, "The menu:
// stores").
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  type DataService,
  type OnlineOrderingChange,
  OnlineOrderingStatus,
  type StoreAddress,
  type StoreSchema,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { pageOf } from "./cursor.js";
import { catalogueListing, feedCursor } from "./catalogue-feed.js";
import { storeEvent } from "./catalogue-events.js";
import { checkedOpeningHours, isIanaTimeZone, openingHoursOf } from "./opening-hours.js";
import { isSandboxCall } from "./partner-call.js";
import type { OnlineOrderingSetting, StoredAddress, StoreRow } from "./queries/store-queries.js";
import {
  companyOf,
  dateTimeField,
  defaultPageSize,
  fail,
  idOf,
  invalidField,
  storeScopeOf,
  type DataContext,
} from "./data-context.js";

/** Whether a store takes online orders at `now`: a pause whose end has passed is over. */
export function isPausedAt(row: Pick<StoreRow, "online_ordering_status" | "paused_until">, now: Date): boolean {
  return row.online_ordering_status === "PAUSED" && (row.paused_until === null || row.paused_until > now);
}

export function storeOf(row: StoreRow, now: Date): MessageInitShape<typeof StoreSchema> {
  const paused = isPausedAt(row, now);
  return {
    id: BigInt(row.id),
    name: row.name,
    address: row.address ?? undefined,
    timeZone: row.time_zone,
    openingHours: row.opening_hours ? openingHoursOf(row.opening_hours) : undefined,
    onlineOrdering: paused
      ? {
          status: OnlineOrderingStatus.PAUSED,
          pausedUntil: row.paused_until?.toISOString(),
          reason: row.pause_reason ?? undefined,
        }
      : { status: OnlineOrderingStatus.ACCEPTING },
    updatedAt: row.updated_key,
  };
}

function addressOf(address: StoreAddress): StoredAddress {
  return {
    line1: address.line1,
    ...(address.line2 === undefined ? {} : { line2: address.line2 }),
    city: address.city,
    ...(address.region === undefined ? {} : { region: address.region }),
    ...(address.postcode === undefined ? {} : { postcode: address.postcode }),
    country: address.country,
  };
}

type StoreRpcs =
  | "listStores"
  | "getStore"
  | "updateStoreDetails"
  | "setStoreOnlineOrdering"
  | "setSandboxStoreOnlineOrdering"
  | "setSandboxStoreOpeningHours";

export function createStoreHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, StoreRpcs> {
  const { stores, catalogue, now } = shared;

  /**
   * A pause or a resume as the rules allow it: an end and a reason only with a pause, the end after now. `prefix`
   * is where the fields sit in the request ("change." for the point of sale's, "" for the sandbox helper's).
   */
  const settingOf = (
    change: Pick<OnlineOrderingChange, "status" | "pausedUntil" | "reason">,
    prefix: string,
  ): OnlineOrderingSetting => {
    if (change.status === OnlineOrderingStatus.ACCEPTING) {
      if (change.pausedUntil !== undefined) throw invalidField(`${prefix}pausedUntil`, "is only for PAUSED");
      if (change.reason !== undefined) throw invalidField(`${prefix}reason`, "is only for PAUSED");
      return { status: "ACCEPTING" };
    }
    let pausedUntil: Date | null = null;
    if (change.pausedUntil !== undefined) {
      pausedUntil = new Date(dateTimeField(`${prefix}pausedUntil`, change.pausedUntil));
      if (pausedUntil <= now()) throw invalidField(`${prefix}pausedUntil`, "must be after now");
    }
    return { status: "PAUSED", pausedUntil, reason: change.reason ?? null };
  };

  const setOnlineOrdering = (companyId: number, id: number, setting: OnlineOrderingSetting) =>
    catalogue.change(companyId, now(), async (writer, stamp) => {
      const row = await writer.stores.setOnlineOrdering(companyId, id, setting, stamp);
      if (!row) throw fail("partner.store_not_found", undefined, { field: "id" });
      const store = storeOf(row, now());
      return { result: { store }, events: [storeEvent(store)] };
    });

  /** The point of sale's details change (the fields given replace the stored ones) and its store.updated event. */
  const updateDetails = (companyId: number, id: number, details: Parameters<typeof stores.updateDetails>[2]) =>
    catalogue.change(companyId, now(), async (writer, stamp) => {
      const row = await writer.stores.updateDetails(companyId, id, details, stamp);
      if (!row) throw fail("partner.store_not_found", undefined, { field: "id" });
      const store = storeOf(row, now());
      return { result: { store }, events: [storeEvent(store)] };
    });

  /** The store of a partner's read, within the stores its access covers. */
  const readableStore = async (companyId: number, id: number, context: HandlerContext) => {
    const scope = storeScopeOf(context);
    if (scope && !scope.includes(id)) throw fail("partner.store_not_in_scope", undefined, { field: "id" });
    const row = await stores.find(companyId, id);
    if (!row) throw fail("partner.store_not_found", undefined, { field: "id" });
    return row;
  };

  return {
    async listStores(request, context) {
      const companyId = companyOf(request);
      const limit = request.limit ?? defaultPageSize;
      const listing = catalogueListing("stores", request);
      const at = now();
      if (!listing.feed) {
        const page = pageOf(await stores.list(companyId, listing.afterId, limit + 1, storeScopeOf(context)), limit);
        return { stores: page.rows.map((row) => storeOf(row, at)), nextCursor: page.nextCursor };
      }
      // The feed, narrowed to the stores an access request covers as the list is.
      const rows = await stores.changes(companyId, listing.after, limit, storeScopeOf(context));
      return { stores: rows.map((row) => storeOf(row, at)), nextCursor: feedCursor("stores", rows, listing.after) };
    },

    async getStore(request, context) {
      const row = await readableStore(companyOf(request), idOf(request.id), context);
      return { store: storeOf(row, now()) };
    },

    async updateStoreDetails(request) {
      const companyId = companyOf(request);
      if (request.timeZone !== undefined && !isIanaTimeZone(request.timeZone))
        throw fail("partner.invalid_time_zone", undefined, { field: "timeZone" });
      const openingHours = request.openingHours ? checkedOpeningHours(request.openingHours) : undefined;
      return updateDetails(companyId, idOf(request.id), {
        ...(request.address ? { address: addressOf(request.address) } : {}),
        ...(request.timeZone === undefined ? {} : { timeZone: request.timeZone }),
        ...(openingHours ? { openingHours } : {}),
      });
    },

    async setSandboxStoreOpeningHours(request, context) {
      const companyId = companyOf(request);
      if (!isSandboxCall(context.requestHeader)) throw fail("partner.env_mismatch");
      const openingHours = checkedOpeningHours(request.openingHours!);
      return updateDetails(companyId, idOf(request.id), { openingHours });
    },

    async setStoreOnlineOrdering(request) {
      const companyId = companyOf(request);
      if (!request.change) throw invalidField("change", "is required");
      return setOnlineOrdering(companyId, idOf(request.id), settingOf(request.change, "change."));
    },

    async setSandboxStoreOnlineOrdering(request, context) {
      const companyId = companyOf(request);
      if (!isSandboxCall(context.requestHeader)) throw fail("partner.env_mismatch");
      const id = idOf(request.id);
      await readableStore(companyId, id, context);
      return setOnlineOrdering(companyId, id, settingOf(request, ""));
    },
  };
}
