// What the DataService's sections (./catalogue.ts, ./online-orders.ts, ./reports.ts) share, built once per region:
// the region's queries, the clock's dates, and the request readers and error shorthands every RPC uses.
import type { HandlerContext } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { parseStoreScope, storeScopeHeader } from "./store-scope.js";
import { createCategoryQueries } from "./queries/category-queries.js";
import { decodeCursor } from "./cursor.js";
import { microsecondsUtc, parseDateTime } from "./date-time.js";
import { createOrderChanges } from "./order-changes.js";
import { createEmployeeQueries } from "./queries/employee-queries.js";
import { createItemQueries } from "./queries/item-queries.js";
import { createModifierQueries } from "./queries/modifier-queries.js";
import { createCatalogueChanges } from "./catalogue-changes.js";
import { createOrderQueries } from "./queries/order-queries.js";
import { createReportQueries } from "./queries/report-queries.js";
import { createStoreQueries } from "./queries/store-queries.js";
import { serviceError, serviceErrorWithDetails } from "../errors/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Region } from "../config/regions.js";
import { regionSchema } from "../storage/schemas.js";
import type { ServiceContext } from "../runtime/service-context.js";

export interface DataServiceOptions {
  /** The region whose database this instance serves; it never touches another region's data. */
  region: Region;
  /** That region's database (its own, or the control database's client: the schema is region_<r> either way). */
  sql: SqlClient;
}

/** Page size of a list when `limit` is absent (spec: GET /v1/items, default 10). */
export const defaultPageSize = 10;

export const fail = (code: Parameters<typeof serviceError>[1], cause?: unknown, params: Record<string, string> = {}) =>
  serviceError(DataService.typeName, code, params, cause);

/** The stores the caller may read (./store-scope.ts): undefined for every store. */
export function storeScopeOf(context: HandlerContext): number[] | undefined {
  return parseStoreScope(context.requestHeader.get(storeScopeHeader));
}

/** The merchant of a request: set by the front from the token, required from internal callers. */
export function companyOf(request: { companyId?: bigint }): number {
  if (request.companyId === undefined) throw fail("partner.company_param_required");
  return Number(request.companyId);
}

/** The id of a request path, or 0 (never a row) when it is beyond what our ids can be. */
export function idOf(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? 0 : Number(value);
}

/** The row id a list continues after; a cursor we did not issue is a validation failure naming `cursor`. */
export function afterIdOf(cursor: string | undefined): number {
  const afterId = decodeCursor(cursor);
  if (afterId === undefined) throw serviceError(DataService.typeName, "request.invalid_fields", { fields: "cursor" });
  return afterId;
}

/** A validation failure of the partner envelope (400, no code) naming `field`, with the rule it broke. */
export function invalidField(field: string, rule: string) {
  return serviceErrorWithDetails(DataService.typeName, "request.invalid_fields", { fields: field }, [{ field, rule }]);
}

/** An RFC 3339 date-time field as an ISO instant, or a validation failure naming it. */
export function dateTimeField(field: string, text: string): string {
  const millis = parseDateTime(text);
  if (millis === undefined) throw invalidField(field, "must be an RFC 3339 date-time with an offset");
  return microsecondsUtc(text) ?? new Date(millis).toISOString();
}

/** The region's queries and the clock, shared by every section of one DataService. */
export type DataContext = ReturnType<typeof createDataContext>;

export function createDataContext(context: ServiceContext, options: DataServiceOptions) {
  const { region, sql } = options;
  const schema = regionSchema(region);
  return {
    region,
    onlineOrders: context.config.onlineOrders,
    stores: createStoreQueries(sql, schema),
    items: createItemQueries(sql, schema),
    modifiers: createModifierQueries(sql, schema),
    categories: createCategoryQueries(sql, schema),
    catalogue: createCatalogueChanges(sql, schema),
    employees: createEmployeeQueries(sql, schema),
    orders: createOrderQueries(sql, schema),
    reports: createReportQueries(sql, schema),
    changes: createOrderChanges(sql, schema),
    now: () => new Date(context.clock.now()),
    later: (seconds: number) => new Date(context.clock.now() + seconds * 1000).toISOString(),
  };
}
