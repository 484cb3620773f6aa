// Words the console pages share: products, organization roles, app and access-request states in the page's
// language, and times as the reader's locale writes them. A form's refusal is said by ./error-summary.ts.
import { OrganizationRole } from "../../gen/partnerapi/v1/console_service_pb.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { momentText, type Locale, type MessageKey } from "../web/i18n.js";
import type { Visit } from "./visit.js";

const productNames = {
  [Product.FULL]: "console.productFull",
  [Product.ONLINE_ORDER]: "console.productOnlineOrder",
  [Product.ADSR]: "console.productAdsr",
} as const;

export function productName(visit: Visit, product: Product): string {
  return product === Product.UNSPECIFIED ? "" : visit.t(productNames[product]);
}

export function roleName(visit: Visit, role: OrganizationRole): string {
  const keys = {
    [OrganizationRole.OWNER]: "console.roleOwner",
    [OrganizationRole.ADMIN]: "console.roleAdmin",
    [OrganizationRole.DEVELOPER]: "console.roleDeveloper",
    [OrganizationRole.VIEWER]: "console.roleViewer",
  } as const;
  return role === OrganizationRole.UNSPECIFIED ? "" : visit.t(keys[role]);
}

/** What a role may do, as the server decides it (docs/decisions.md, "Console", the roles table). */
export function rightsOf(role: OrganizationRole | undefined) {
  const manager = role === OrganizationRole.OWNER || role === OrganizationRole.ADMIN;
  return { manageApps: manager || role === OrganizationRole.DEVELOPER, archiveApps: manager, manageMembers: manager };
}

export function appStateName(visit: Visit, state: string): string {
  const keys: Record<string, MessageKey> = {
    DRAFT: "console.appStateDraft",
    IN_REVIEW: "console.appStateInReview",
    APPROVED: "console.appStateApproved",
    REJECTED: "console.appStateRejected",
    ARCHIVED: "console.appStateArchived",
  };
  return keys[state] ? visit.t(keys[state]!) : state;
}

export function accessRequestStateName(visit: Visit, state: string): string {
  const keys: Record<string, MessageKey> = {
    PENDING: "console.accessStatePending",
    APPROVED: "console.accessStateApproved",
    DECLINED: "console.accessStateDeclined",
    WITHDRAWN: "console.accessStateWithdrawn",
    EXPIRED: "console.accessStateExpired",
  };
  return keys[state] ? visit.t(keys[state]!) : state;
}

/** An RFC 3339 time as the pages show it: in the reader's language (Intl), UTC said as such. */
export function shownTime(value: string | undefined, locale: Locale): string {
  if (!value) return "";
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? value : momentText(locale, at);
}
