// The reports section of the DataService (data_service.proto): sales by day and by store over a checked window.
import type { ServiceImpl } from "@connectrpc/connect";
import type { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { regionCurrency } from "./sandbox-data.js";
import { checkReportWindow } from "./report-window.js";
import { companyOf, fail, storeScopeOf, type DataContext } from "./data-context.js";

type ReportRpcs = "getDailySalesReport" | "getSalesByStoreReport";

export function createReportHandlers(shared: DataContext): Pick<ServiceImpl<typeof DataService>, ReportRpcs> {
  const { region, reports } = shared;

  const window = (request: { from: string; to: string }) => {
    const checked = checkReportWindow(request.from, request.to);
    if (!checked.ok) throw fail(checked.code);
    return checked;
  };

  return {
    async getDailySalesReport(request, context) {
      const companyId = companyOf(request);
      const { from, to } = window(request);
      const rows = await reports.dailySales(companyId, from, to, storeScopeOf(context));
      return {
        from,
        to,
        currency: regionCurrency[region],
        days: rows.map((row) => ({
          date: row.date,
          saleCount: BigInt(row.sale_count),
          itemCount: BigInt(row.item_count),
          totalMinor: BigInt(row.total_minor),
        })),
      };
    },

    async getSalesByStoreReport(request, context) {
      const companyId = companyOf(request);
      const { from, to } = window(request);
      const rows = await reports.salesByStore(companyId, from, to, storeScopeOf(context));
      return {
        from,
        to,
        currency: regionCurrency[region],
        stores: rows.map((row) => ({
          storeId: BigInt(row.store_id),
          storeName: row.store_name,
          saleCount: BigInt(row.sale_count),
          itemCount: BigInt(row.item_count),
          totalMinor: BigInt(row.total_minor),
        })),
      };
    },
  };
}
