// The lifecycle of an online order (issue 25; docs/api-guide.md, "Online orders"): which move goes from which status
// to which, and who may make it. The one table every writer consults; ./order-changes.ts applies a move as one
// conditional write, so a move from any other status is refused with the status the order is in.

/** Every status an online order can be in. PENDING is the only one it is created in. */
export const orderStatuses = ["PENDING", "ACCEPTED", "REJECTED", "READY", "COMPLETED", "CANCELLED"] as const;
export type OrderStatus = (typeof orderStatuses)[number];

/** Who makes a move: the placing partner, the merchant's point of sale (or the sandbox acting as it), the platform. */
export type MoveMaker = "partner" | "pos" | "platform";

export interface OrderMove {
  from: readonly OrderStatus[];
  to: OrderStatus;
  by: MoveMaker;
}

/** The table of moves (issue 25, "The lifecycle"); nothing else moves an order. */
export const orderMoves = {
  accept: { from: ["PENDING"], to: "ACCEPTED", by: "pos" },
  reject: { from: ["PENDING"], to: "REJECTED", by: "pos" },
  cancelByPartner: { from: ["PENDING"], to: "CANCELLED", by: "partner" },
  markReady: { from: ["ACCEPTED"], to: "READY", by: "pos" },
  cancelByMerchant: { from: ["ACCEPTED", "READY"], to: "CANCELLED", by: "pos" },
  complete: { from: ["READY"], to: "COMPLETED", by: "pos" },
  timeOut: { from: ["PENDING"], to: "REJECTED", by: "platform" },
} as const satisfies Record<string, OrderMove>;
export type OrderMoveName = keyof typeof orderMoves;

/** The point of sale's move that reaches `status` (the sandbox helper's target); undefined for PENDING or unknown. */
export function posMoveTo(status: string): OrderMoveName | undefined {
  const byTarget: Record<string, OrderMoveName> = {
    ACCEPTED: "accept",
    REJECTED: "reject",
    READY: "markReady",
    COMPLETED: "complete",
    CANCELLED: "cancelByMerchant",
  };
  return Object.hasOwn(byTarget, status) ? byTarget[status] : undefined;
}

/** Statuses no move leaves: the order's story is over. */
export function isFinal(status: string): boolean {
  return status === "REJECTED" || status === "COMPLETED" || status === "CANCELLED";
}

/**
 * Reasons the merchant may give (OnlineOrderReason without its prefix). TIMED_OUT and PARTNER_CANCELLED are the
 * platform's own: a point of sale cannot claim them.
 */
export const merchantReasons = [
  "ITEM_UNAVAILABLE",
  "STORE_CLOSED",
  "TOO_BUSY",
  "CANNOT_DELIVER",
  "CUSTOMER_REQUEST",
  "CUSTOMER_NO_SHOW",
  "OTHER",
] as const;
