// The webhook events of catalogue changes (issue 39), as ./catalogue-changes.ts records them: `data` is the merchant
// (added by the change) and the resource as the partner API answers it (src/events/event-schemas.ts).
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { CategorySchema, type ItemSchema, StoreSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { messageToJson } from "../runtime/wire/index.js";
import type { CatalogueEvent } from "./catalogue-changes.js";
import { itemJson } from "./item-message.js";

/**
 * An item's event, to every app that reads the merchant's items. An availability change names its store
 * (`storeId`), and its `item` answers `available` in that store.
 */
export function itemEvent(
  type: "item.created" | "item.updated" | "item.deleted",
  item: MessageInitShape<typeof ItemSchema>,
  storeId?: number,
): CatalogueEvent {
  return {
    type,
    audience: { kind: "company" },
    data: storeId === undefined ? { item: itemJson(item) } : { storeId, item: itemJson(item) },
  };
}

/** A category's event, to every app that reads the merchant's items. */
export function categoryEvent(
  type: "category.created" | "category.updated",
  category: MessageInitShape<typeof CategorySchema>,
): CatalogueEvent {
  return {
    type,
    audience: { kind: "company" },
    data: { category: messageToJson(CategorySchema, create(CategorySchema, category)) },
  };
}

/**
 * A store's event (store.updated: details, hours, a pause or a resume), to the apps that read the merchant's stores;
 * an ADSR app in production only for a store its approved access request names.
 */
export function storeEvent(store: MessageInitShape<typeof StoreSchema>): CatalogueEvent {
  return {
    type: "store.updated",
    audience: { kind: "store", storeId: Number(store.id) },
    data: { store: messageToJson(StoreSchema, create(StoreSchema, store)) },
  };
}
