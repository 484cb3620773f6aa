// DataService: the business routes of one region (stores, items, categories, online orders, reports), served from
// that region's database only. The public front authenticates, limits and routes a partner call, then calls the
// DataService of the merchant's region with `company_id` set from the token; internal callers set it themselves.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { composeSections } from "../runtime/service-sections.js";
import { createCatalogueHandlers } from "./catalogue.js";
import { createDataContext, type DataServiceOptions } from "./data-context.js";
import { createOnlineOrderHandlers } from "./online-orders.js";
import { createMenuItemHandlers } from "./menu-items.js";
import { createCategoryHandlers } from "./menu-categories.js";
import { createReportHandlers } from "./reports.js";
import { createStoreHandlers } from "./stores.js";

export { defaultPageSize, type DataServiceOptions } from "./data-context.js";

/** A DataService implementation: one per region, on that region's database. */
export type DataServiceImpl = ServiceImpl<typeof DataService>;

/** One module per section of data_service.proto; composing them here makes a missing RPC fail to compile. */
export function createDataService(context: ServiceContext, options: DataServiceOptions): DataServiceImpl {
  const shared = createDataContext(context, options);
  return composeSections(
    createStoreHandlers(shared),
    createCatalogueHandlers(shared),
    createMenuItemHandlers(shared),
    createCategoryHandlers(shared),
    createOnlineOrderHandlers(shared),
    createReportHandlers(shared),
  );
}
