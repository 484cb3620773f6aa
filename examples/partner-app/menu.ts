// The menu of one of the ordering merchant's stores, as a partner's ordering site would keep it: read once (the store
// and every item with its availability there, GET /v1/stores/{id} and GET /v1/items?storeId=), then kept current by
// the webhook events the app receives, never read again. `item.updated` for that store carries the item's
// availability there; an item event without that store (an edit, or a sell-out elsewhere) changes the item but
// keeps its availability here; `store.updated` replaces the store (a pause and a resume). An event older than what
// the copy holds (by `updatedAt`; deliveries may come out of order, and once per endpoint) changes nothing.
import type { Item, MerchantClient, Store, WebhookEvent } from "./partner-client.js";

export interface StoreMenu {
  store: Store;
  /** In menu order (the list's). */
  items: Item[];
}

export interface MenuBoard {
  /** The merchant's stores: read from the API the first time, then the copy store.updated keeps. */
  stores(): Promise<Store[]>;
  /** The store's menu: read from the API the first time, then the copy the events keep. */
  menuOf(storeId: number): Promise<StoreMenu>;
  /** Applies an event of the merchant to the menus read so far; other merchants' and other types are ignored. */
  apply(event: WebhookEvent): void;
}

export function createMenuBoard(merchantId: number, merchant: () => Promise<MerchantClient>): MenuBoard {
  const menus = new Map<number, StoreMenu>();
  const loading = new Map<number, Promise<StoreMenu>>();
  let stores: Promise<Store[]> | undefined;
  const newer = (store: Store, held: Store | undefined) => !held || store.updatedAt >= held.updatedAt;

  const load = async (storeId: number): Promise<StoreMenu> => {
    const client = await merchant();
    const store = await client.stores.get(storeId);
    const items: Item[] = [];
    for await (const item of client.items.all({ storeId, limit: 100 })) items.push(item);
    const menu = { store, items };
    menus.set(storeId, menu);
    return menu;
  };

  const applyItem = (menu: StoreMenu, type: string, item: Item, storeId: number | undefined) => {
    const index = menu.items.findIndex((entry) => entry.id === item.id);
    const held = menu.items[index];
    if (held && item.updatedAt < held.updatedAt) return;
    if (type === "item.deleted") {
      if (index >= 0) menu.items.splice(index, 1);
      return;
    }
    // The event's availability is this store's only when it names this store; a new item has none stored: it sells.
    const here = storeId === menu.store.id ? item : keepAvailability(item, held);
    if (index >= 0) menu.items[index] = here;
    else menu.items.push(here);
  };

  return {
    stores() {
      stores ??= merchant()
        .then((client) => client.stores.list({ limit: 100 }))
        .then((page) => page.stores)
        .catch((error: unknown) => {
          stores = undefined; // read again next time
          throw error;
        });
      return stores;
    },
    menuOf(storeId) {
      const held = menus.get(storeId);
      if (held) return Promise.resolve(held);
      let pending = loading.get(storeId);
      if (!pending) {
        pending = load(storeId).finally(() => loading.delete(storeId));
        loading.set(storeId, pending);
      }
      return pending;
    },
    apply(event) {
      if (!("companyId" in event.data) || event.data.companyId !== merchantId) return;
      switch (event.type) {
        case "store.updated": {
          const store = event.data.store;
          const menu = menus.get(store.id);
          if (menu && newer(store, menu.store)) menu.store = store;
          // A list still being read (or failing: read again later) takes the change once it is there.
          void stores?.then(
            (list) => {
              const index = list.findIndex((entry) => entry.id === store.id);
              if (index >= 0 && newer(store, list[index])) list[index] = store;
            },
            () => undefined,
          );
          return;
        }
        case "item.created":
        case "item.updated":
        case "item.deleted":
          for (const menu of menus.values()) applyItem(menu, event.type, event.data.item, event.data.storeId);
          return;
        default:
          return;
      }
    },
  };
}

/** The item as an event gave it, with the availability (its own and its modifiers') the copy held for this store. */
function keepAvailability(item: Item, held: Item | undefined): Item {
  const modifiers = new Map(
    (held?.modifierGroups ?? []).flatMap((group) => group.modifiers).map((modifier) => [modifier.id, modifier]),
  );
  return {
    ...item,
    available: held?.available ?? true,
    unavailableUntil: held?.unavailableUntil,
    modifierGroups: item.modifierGroups.map((group) => ({
      ...group,
      modifiers: group.modifiers.map((modifier) => ({
        ...modifier,
        available: modifiers.get(modifier.id)?.available ?? true,
        unavailableUntil: modifiers.get(modifier.id)?.unavailableUntil,
      })),
    })),
  };
}

/** Whether a store takes orders at `now`: a pause whose `pausedUntil` has passed is over (the API reads it so too). */
export function isPaused(store: Store, now: Date): boolean {
  const { status, pausedUntil } = store.onlineOrdering;
  return status === "PAUSED" && (pausedUntil === undefined || Date.parse(pausedUntil) > now.getTime());
}

/** Whether an item sells at `now`: sold out until `unavailableUntil` at most. */
export function isAvailable(entry: { available?: boolean; unavailableUntil?: string }, now: Date): boolean {
  return (
    entry.available !== false ||
    (entry.unavailableUntil !== undefined && Date.parse(entry.unavailableUntil) <= now.getTime())
  );
}
