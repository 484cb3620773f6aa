// An online order as the partner API answers it: the message of GET /v1/online-orders/{id} (service.ts) and, as
// JSON, the `order` of the online_order.* webhook events (order-changes.ts), so both say the same thing.
import { create, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import {
  FulfilmentType,
  OnlineOrderReason,
  OnlineOrderReasonSchema,
  OnlineOrderSchema,
  type OrderLineSchema,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { enumNumberOf, messageToJson } from "../runtime/wire/index.js";
import type { OnlineOrderRow, StoredOrderLine } from "./queries/order-queries.js";

/** The reason column's text (OnlineOrderReason without its prefix) as the enum; UNSPECIFIED when none. */
export function reasonOf(text: string | null): OnlineOrderReason {
  const number = text === null ? undefined : enumNumberOf(OnlineOrderReasonSchema, text);
  return number === undefined ? OnlineOrderReason.UNSPECIFIED : (number as OnlineOrderReason);
}

export function orderOf(row: OnlineOrderRow): MessageInitShape<typeof OnlineOrderSchema> {
  return {
    id: BigInt(row.id),
    storeId: BigInt(row.store_id),
    status: row.status,
    totalMinor: BigInt(row.total_minor),
    currency: row.currency,
    placedAt: row.placed_at.toISOString(),
    updatedAt: row.updated_key,
    lines: (Array.isArray(row.lines) ? row.lines : []).map(lineOf),
    fulfilment:
      row.fulfilment_type === null
        ? undefined
        : {
            type: row.fulfilment_type === "DELIVERY" ? FulfilmentType.DELIVERY : FulfilmentType.PICKUP,
            deliveryAddress: row.delivery_address ?? undefined,
          },
    customer:
      row.customer_name === null ? undefined : { name: row.customer_name, phone: row.customer_phone ?? undefined },
    externalReference: row.external_reference ?? undefined,
    note: row.note ?? undefined,
    requestedFor: row.requested_for?.toISOString(),
    promisedFor: row.promised_for?.toISOString(),
    reason: reasonOf(row.reason),
    decideBy: row.status === "PENDING" ? row.decide_by?.toISOString() : undefined,
  };
}

const wholeOr0 = (value: unknown): number => (Number.isSafeInteger(value) ? (value as number) : 0);

/**
 * A stored line as answered: its modifiers as copied at placing, and its total, the line's quantity times the item's
 * price plus each modifier's price times its quantity (every modifier goes with each one of the line's items).
 */
function lineOf(line: StoredOrderLine): MessageInitShape<typeof OrderLineSchema> {
  const quantity = wholeOr0(line.quantity);
  const unit = wholeOr0(line.priceMinor);
  const modifiers = (Array.isArray(line.modifiers) ? line.modifiers : []).map((modifier) => ({
    name: modifier.name ?? "",
    priceMinor: wholeOr0(modifier.priceMinor),
    quantity: wholeOr0(modifier.quantity),
  }));
  const each = modifiers.reduce((sum, modifier) => sum + modifier.priceMinor * modifier.quantity, unit);
  return {
    itemCode: line.itemCode ?? "",
    name: line.name ?? "",
    quantity,
    unitPriceMinor: BigInt(unit),
    totalMinor: BigInt(each * quantity),
    note: typeof line.note === "string" ? line.note : undefined,
    modifiers: modifiers.map((modifier) => ({ ...modifier, priceMinor: BigInt(modifier.priceMinor) })),
  };
}

/** The order as the partner API's JSON (spec spellings, numbers for ids and amounts). */
export function orderJson(row: OnlineOrderRow): JsonObject {
  return messageToJson(OnlineOrderSchema, create(OnlineOrderSchema, orderOf(row)));
}
