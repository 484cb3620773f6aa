// What an online order must say before it is priced and stored, beyond the request schema's field rules (issue 36):
// when it is wanted, and what a delivery needs; and what its store must take (issue 39): not paused, open at the
// time the order is for. Each refusal is a code of its own naming the field (docs/error-codes.md).
import { DataService, FulfilmentType, type PlaceOnlineOrderRequest } from "../../gen/partnerapi/v1/data_service_pb.js";
import { serviceError } from "../errors/index.js";
import type { StoreRow } from "./queries/store-queries.js";
import { isOpenAt } from "./store-open.js";
import { isPausedAt } from "./stores.js";

/**
 * How far ahead `requestedFor` may be (docs/decisions.md, "Online orders"): a week covers ordering ahead for a
 * weekend or an event; beyond it a merchant's menu, prices and opening hours are guesses, and a year-9999 order would
 * sit PENDING on the point of sale for ever.
 */
export const requestedForHorizonDays = 7;

const horizonMs = requestedForHorizonDays * 86_400_000;

/**
 * Refuses a `requestedFor` (already parsed to an ISO instant) before now or more than the horizon after now; the
 * past has no tolerance, as before this rule (absent `requestedFor` means "as soon as possible").
 */
export function checkRequestedFor(requestedFor: string | null, nowMs: number): void {
  if (requestedFor === null) return;
  const at = Date.parse(requestedFor);
  if (at < nowMs || at > nowMs + horizonMs)
    throw serviceError(DataService.typeName, "partner.order_requested_for_out_of_range", {
      field: "requestedFor",
      maxDays: requestedForHorizonDays,
    });
}

/** A DELIVERY order needs a way to reach the customer at the door: the phone the schema leaves optional for PICKUP. */
export function checkDeliveryNeeds(request: PlaceOnlineOrderRequest): void {
  if (request.fulfilment?.type !== FulfilmentType.DELIVERY) return;
  const phone = request.customer?.phone;
  if (phone === undefined || phone.trim() === "")
    throw serviceError(DataService.typeName, "partner.order_customer_phone_required", { field: "customer.phone" });
}

/**
 * Refuses an order the store does not take (issue 39): online ordering paused now (a pause whose end has passed is
 * over), or the time the order is for (`requestedFor`, else now) outside its opening hours in its time zone.
 */
export function checkStoreTakesOrder(store: StoreRow, requestedFor: string | null, now: Date): void {
  if (isPausedAt(store, now)) throw serviceError(DataService.typeName, "partner.store_paused", { field: "storeId" });
  const at = requestedFor === null ? now.getTime() : Date.parse(requestedFor);
  if (!isOpenAt(store.opening_hours, store.time_zone, at))
    throw serviceError(DataService.typeName, "partner.store_closed", { field: "requestedFor" });
}
