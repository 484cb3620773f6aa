// The sandbox orders the console's merchant page reads and moves (./sandbox-orders.ts), in the merchant's region:
// DataService calls through the same callers as the gateway's (in process, or the region's data role over gRPC),
// made as sandbox calls, their refusals read back as the page says them.
import {
  DataService,
  OnlineOrderReason,
  OnlineOrderReasonSchema,
  type OnlineOrder,
} from "../../gen/partnerapi/v1/data_service_pb.js";
import type { Region } from "../config/regions.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { ServiceCaller } from "../runtime/service-caller.js";
import { enumNumberOf } from "../runtime/wire/index.js";
import type { Locale } from "../web/i18n.js";
import { createRegionCall, type Outcome, type RegionError } from "./region-call.js";

export { refusal } from "./region-call.js";

/** How many orders the page shows: the newest placed. */
export const recentOrderCount = 20;
/** The placed-at windows searched in turn (days back; undefined: every order) until one holds enough orders. */
const windowsDays = [1, 30, undefined] as const;
/** Pages of 100 read per window at most: the page never reads more than this many orders of one window. */
const maxPages = 10;

/** A refusal of the region's DataService, as the page says it. */
export type OrderError = RegionError;

/** The sandbox orders of the merchants, in their regions: what the console site asks of the DataService. */
export interface SandboxOrderDesk {
  /** The newest `recentOrderCount` orders placed with the merchant, newest first. */
  recent(region: string, companyId: number, locale: Locale): Promise<Outcome<OnlineOrder[]>>;
  /** The point of sale's move to `status`, as the sandbox helper makes it. */
  move(
    region: string,
    companyId: number,
    orderId: number,
    change: { status: string; reason?: string; promisedFor?: string },
    locale: Locale,
  ): Promise<Outcome<OnlineOrder>>;
}

export function createSandboxOrderDesk(options: {
  callers: ReadonlyMap<Region, ServiceCaller>;
  ids: IdSource;
  clock: Clock;
}): SandboxOrderDesk {
  const call = createRegionCall(options);
  return {
    async recent(region, companyId, locale) {
      const now = options.clock.now();
      for (const days of windowsDays) {
        let kept: OnlineOrder[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < maxPages; page++) {
          const listed = await call(
            region,
            DataService.method.listOnlineOrders,
            {
              companyId: BigInt(companyId),
              limit: 100,
              ...(days === undefined ? {} : { placedFrom: new Date(now - days * 86_400_000).toISOString() }),
              ...(cursor ? { cursor } : {}),
            },
            locale,
          );
          if (!listed.ok) return listed;
          kept = [...kept, ...listed.value.orders].slice(-recentOrderCount);
          cursor = listed.value.nextCursor || undefined;
          if (!cursor) break;
        }
        if (kept.length >= recentOrderCount || days === undefined) return { ok: true, value: kept.reverse() };
      }
      return { ok: true, value: [] };
    },
    async move(region, companyId, orderId, change, locale) {
      const reason = change.reason
        ? (enumNumberOf(OnlineOrderReasonSchema, change.reason) as OnlineOrderReason | undefined)
        : undefined;
      const moved = await call(
        region,
        DataService.method.moveSandboxOnlineOrder,
        {
          companyId: BigInt(companyId),
          id: BigInt(orderId),
          status: change.status,
          reason: reason ?? OnlineOrderReason.UNSPECIFIED,
          ...(change.promisedFor ? { promisedFor: change.promisedFor } : {}),
        },
        locale,
      );
      return moved.ok ? { ok: true, value: moved.value.order! } : moved;
    },
  };
}
