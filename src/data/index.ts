// The data owner's public surface (DataService of a region): what other folders may use of src/data/.
export { richMerchantProfile, seededOrderStates, seedMerchantData, seedSandboxMerchant } from "./sandbox-data.js";
export { createDataService, type DataServiceImpl } from "./service.js";
export { companyHasStores } from "./store-directory.js";
export { formatStoreScope, storeScopeHeader } from "./store-scope.js";
export { isSandboxCall, partnerAppHeader, partnerEnvironmentHeader, type PartnerEnvironment } from "./partner-call.js";
export { createOrderTimers, type OrderTimers } from "./order-timers.js";
export { merchantReasons, orderMoves, orderStatuses, type OrderMoveName } from "./order-lifecycle.js";
