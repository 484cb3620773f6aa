// DataService: the business routes of one region, served from that region's database.
import type { ServiceImpl } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { Region } from "../storage/regions.js";
import type { ServiceContext } from "./dependencies.js";
import { notBuilt } from "./not-built.js";

export interface DataServiceOptions {
  /** The region whose database this instance serves; it never touches another region's data. */
  region: Region;
}

export function createDataService(_context: ServiceContext, _options: DataServiceOptions): ServiceImpl<typeof DataService> {
  return {
    listStores: notBuilt(DataService, "ListStores"),
    listItems: notBuilt(DataService, "ListItems"),
    createItem: notBuilt(DataService, "CreateItem"),
    updateItem: notBuilt(DataService, "UpdateItem"),
    listCategories: notBuilt(DataService, "ListCategories"),
    createCategory: notBuilt(DataService, "CreateCategory"),
    getOnlineOrder: notBuilt(DataService, "GetOnlineOrder"),
    getDailySalesReport: notBuilt(DataService, "GetDailySalesReport"),
  };
}
