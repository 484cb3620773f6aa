// The partner request log: what each app's partner calls were (the console's request log and usage chart) and when
// an app last called a merchant (the merchant's connected apps). Written off the request path by the recorder.
export { cachedClientIdentities, type ClientIdentity, type IdentifyClient } from "./client-identities.js";
export { createRequestRecorder, keptCallsPerApp, type PartnerCallRecord, type RequestRecorder } from "./recorder.js";
export {
  createRequestLogQueries,
  type LogFilter,
  type LoggedCall,
  type LoggedEnvironment,
  type UsageMinuteRow,
} from "./request-log-queries.js";
