// Rules of request fields that the services check themselves, answering their own documented codes, so the front's
// validation (the proto's (partnerapi.v1.field) rules) leaves them alone: a report window without `from` must be
// 400 partner.invalid_window (spec, "Partner codes"), a short password 400 developer.password_too_weak with the rule
// it broke, not a generic validation failure. The OpenAPI document states them all the same, so a client generated
// from it knows what the server will refuse. Keyed by the field's full proto name; a key naming no field of a
// routed request stops the start (openapi.ts), so this list cannot outlive a renamed field unnoticed.
import { minPasswordLength } from "../console/index.js";

export interface ServiceCheckedRule {
  /** The field must be sent (the document lists it under `required`). */
  required?: boolean;
  /** A JSON Schema format: `date` is RFC 3339 full-date (YYYY-MM-DD), `date-time` RFC 3339 with an offset. */
  format?: "date" | "date-time";
  /** The least number of characters. */
  minLength?: number;
}

const reportWindow: ServiceCheckedRule = { required: true, format: "date" }; // partner.invalid_window
const password: ServiceCheckedRule = { minLength: minPasswordLength }; // developer.password_too_weak

export const serviceCheckedRules: Readonly<Record<string, ServiceCheckedRule>> = {
  "partnerapi.v1.GetDailySalesReportRequest.from": reportWindow,
  "partnerapi.v1.GetDailySalesReportRequest.to": reportWindow,
  "partnerapi.v1.GetSalesByStoreReportRequest.from": reportWindow,
  "partnerapi.v1.GetSalesByStoreReportRequest.to": reportWindow,
  // partner.invalid_window as well (a malformed bound, or placedTo before placedFrom).
  "partnerapi.v1.ListOnlineOrdersRequest.placed_from": { format: "date-time" },
  "partnerapi.v1.ListOnlineOrdersRequest.placed_to": { format: "date-time" },
  "partnerapi.v1.SignUpRequest.password": password,
  "partnerapi.v1.ResetPasswordRequest.new_password": password,
};
