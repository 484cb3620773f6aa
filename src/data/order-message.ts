// An online order as the partner API answers it: the message of GET /v1/online-orders/{id} (service.ts) and, as
// JSON, the `order` of the online_order.* webhook events (order-changes.ts), so both say the same thing.
import { create, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import {
  FulfilmentType,
  OnlineOrderReason,
  OnlineOrderReasonSchema,
  OnlineOrderSchema,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import { enumNumberOf, messageToJson } from "../runtime/wire/index.js";
import type { OnlineOrderRow } from "./queries/order-queries.js";

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
    lines: (Array.isArray(row.lines) ? row.lines : []).map((line) => {
      const quantity = Number.isSafeInteger(line.quantity) ? line.quantity! : 0;
      const unit = Number.isSafeInteger(line.priceMinor) ? line.priceMinor! : 0;
      return {
        itemCode: line.itemCode ?? "",
        name: line.name ?? "",
        quantity,
        unitPriceMinor: BigInt(unit),
        totalMinor: BigInt(unit * quantity),
        note: typeof line.note === "string" ? line.note : undefined,
      };
    }),
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

/** The order as the partner API's JSON (spec spellings, numbers for ids and amounts). */
export function orderJson(row: OnlineOrderRow): JsonObject {
  return messageToJson(OnlineOrderSchema, create(OnlineOrderSchema, orderOf(row)));
}
