// The DataService the internal port serves in a process that runs several regions: each call goes to the DataService
// of the request's merchant's region, found in the merchant directory (the front routes by the token instead).
import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { findMerchant } from "../credential/index.js";
import type { DataServiceImpl } from "../data/index.js";
import { serviceError } from "../errors/index.js";
import type { Region } from "../config/regions.js";
import type { SqlClient } from "../storage/sql-client.js";

/**
 * The DataService of the internal port when this process runs several regions: each call goes to the region of
 * the request's `company_id` in the merchant directory. A region not served here is partner.region_unavailable.
 */
export function createRegionDispatcher(
  local: ReadonlyMap<Region, DataServiceImpl>,
  controlSql: SqlClient,
): DataServiceImpl {
  const dispatch = (method: DescMethod) => async (request: { companyId?: bigint }, context: HandlerContext) => {
    if (request.companyId === undefined) throw serviceError(DataService.typeName, "partner.company_param_required");
    const merchant = await findMerchant(controlSql, Number(request.companyId));
    const impl = merchant && local.get(merchant.region);
    if (!impl) throw serviceError(DataService.typeName, "partner.region_unavailable");
    const handler = impl[method.localName as keyof DataServiceImpl] as (
      request: unknown,
      context: HandlerContext,
    ) => unknown;
    return handler(request, context);
  };
  const impl: Record<string, unknown> = {};
  for (const method of DataService.methods) {
    if (method.methodKind === "unary") impl[method.localName] = dispatch(method);
  }
  return impl as DataServiceImpl;
}
