// The sandbox merchant's menu as the console's menu page reads and changes it (./sandbox-menu.ts), in the merchant's
// region: its stores, its items a page at a time with their availability in one store, and the writes a developer
// makes there. Each write is the one the partner API or the point of sale makes, so it takes the same write path
// (src/data/catalogue-changes.ts), with the same rules and the same webhook events in the same transaction:
//   pause / resume   SetSandboxStoreOnlineOrdering (the sandbox helper, POST /v1/sandbox/stores/{id}/online-ordering)
//   opening hours    SetSandboxStoreOpeningHours (the point of sale's rules, for sandbox calls; admitted for the front)
//   sold out         SetItemAvailability (PUT /v1/stores/{storeId}/items/{itemId}/availability)
// docs/decisions.md, "Console site", "The sandbox menu page".
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  DataService,
  OnlineOrderingStatus,
  type Item,
  type OpeningHoursSchema,
  type Store,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import type { Region } from "../config/regions.js";
import type { IdSource } from "../runtime/ids.js";
import type { ServiceCaller } from "../runtime/service-caller.js";
import type { Locale } from "../web/i18n.js";
import { createRegionCall, type Outcome } from "./region-call.js";

/** Stores the page shows (a sandbox merchant has two); items per page of the item list. */
export const menuStoresShown = 20;
export const menuItemsPerPage = 20;

/** A pause (optionally until a time, with a reason) or a resume. */
export type OnlineOrderingWish = { paused: false } | { paused: true; pausedUntil?: string; reason?: string };

export interface SandboxMenuDesk {
  stores(region: string, companyId: number, locale: Locale): Promise<Outcome<Store[]>>;
  store(region: string, companyId: number, storeId: number, locale: Locale): Promise<Outcome<Store>>;
  /** A page of the menu's items with their availability in `storeId` (`cursor`: the previous page's next one). */
  items(
    region: string,
    companyId: number,
    storeId: number,
    cursor: string | undefined,
    locale: Locale,
  ): Promise<Outcome<{ items: Item[]; nextCursor?: string }>>;
  setOnlineOrdering(
    region: string,
    companyId: number,
    storeId: number,
    wish: OnlineOrderingWish,
    locale: Locale,
  ): Promise<Outcome<Store>>;
  /** Replaces the store's opening hours whole (its dated exceptions are part of what is sent). */
  setOpeningHours(
    region: string,
    companyId: number,
    storeId: number,
    hours: MessageInitShape<typeof OpeningHoursSchema>,
    locale: Locale,
  ): Promise<Outcome<Store>>;
  setAvailability(
    region: string,
    companyId: number,
    storeId: number,
    itemId: number,
    wish: { available: boolean; unavailableUntil?: string },
    locale: Locale,
  ): Promise<Outcome<Item>>;
}

export function createSandboxMenuDesk(options: {
  callers: ReadonlyMap<Region, ServiceCaller>;
  ids: IdSource;
}): SandboxMenuDesk {
  const call = createRegionCall(options);
  return {
    async stores(region, companyId, locale) {
      const listed = await call(
        region,
        DataService.method.listStores,
        { companyId: BigInt(companyId), limit: menuStoresShown },
        locale,
      );
      return listed.ok ? { ok: true, value: listed.value.stores } : listed;
    },
    async store(region, companyId, storeId, locale) {
      const found = await call(
        region,
        DataService.method.getStore,
        { companyId: BigInt(companyId), id: BigInt(storeId) },
        locale,
      );
      return found.ok ? { ok: true, value: found.value.store! } : found;
    },
    async items(region, companyId, storeId, cursor, locale) {
      const listed = await call(
        region,
        DataService.method.listItems,
        {
          companyId: BigInt(companyId),
          storeId: BigInt(storeId),
          limit: menuItemsPerPage,
          ...(cursor ? { cursor } : {}),
        },
        locale,
      );
      if (!listed.ok) return listed;
      const { items, nextCursor } = listed.value;
      return { ok: true, value: nextCursor ? { items, nextCursor } : { items } };
    },
    async setOnlineOrdering(region, companyId, storeId, wish, locale) {
      const set = await call(
        region,
        DataService.method.setSandboxStoreOnlineOrdering,
        {
          companyId: BigInt(companyId),
          id: BigInt(storeId),
          ...(wish.paused
            ? {
                status: OnlineOrderingStatus.PAUSED,
                ...(wish.pausedUntil ? { pausedUntil: wish.pausedUntil } : {}),
                ...(wish.reason ? { reason: wish.reason } : {}),
              }
            : { status: OnlineOrderingStatus.ACCEPTING }),
        },
        locale,
      );
      return set.ok ? { ok: true, value: set.value.store! } : set;
    },
    async setOpeningHours(region, companyId, storeId, hours, locale) {
      const set = await call(
        region,
        DataService.method.setSandboxStoreOpeningHours,
        { companyId: BigInt(companyId), id: BigInt(storeId), openingHours: hours },
        locale,
      );
      return set.ok ? { ok: true, value: set.value.store! } : set;
    },
    async setAvailability(region, companyId, storeId, itemId, wish, locale) {
      const set = await call(
        region,
        DataService.method.setItemAvailability,
        {
          companyId: BigInt(companyId),
          storeId: BigInt(storeId),
          itemId: BigInt(itemId),
          available: wish.available,
          ...(wish.unavailableUntil ? { unavailableUntil: wish.unavailableUntil } : {}),
        },
        locale,
      );
      return set.ok ? { ok: true, value: set.value.item! } : set;
    },
  };
}
