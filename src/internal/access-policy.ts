// Which internal callers each RPC of the internal port admits: one table, checked against the served services at
// start (an RPC without an entry, or an entry without an RPC, stops the start). docs/decisions.md, "Internal port",
// says why each row is what it is.
//
//   operator  provisioning and key rotation: organizations, apps and their credentials, merchants, signing keys
//   staff     program and app review, suspensions, and the reads those decisions need
//   front     what a front needs of a remote region's DataService, and nothing else
//   pos       a region's point-of-sale gateway: reads the merchants' online orders and makes the merchant's moves
//
// `none`: reached only in process (the public front, the consent site, the console) and never over this port: the
// partner flows that authenticate a client secret in the message, the verification oracles (secrets, passwords),
// and the console's developer RPCs (a developer signs in at /v1/console; this port is the platform's own).
import type { DescService } from "@bufbuild/protobuf";
import { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { DataService } from "../../gen/partnerapi/v1/data_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { TokenService } from "../../gen/partnerapi/v1/token_service_pb.js";
import type { ServiceRole } from "./service-credentials.js";

/** The roles an RPC admits, or "anonymous" for the two services every client may call unauthenticated. */
export type Admission = readonly ServiceRole[] | "anonymous";

const none: readonly ServiceRole[] = [];
const operator: readonly ServiceRole[] = ["operator"];
const staff: readonly ServiceRole[] = ["staff"];
const operatorOrStaff: readonly ServiceRole[] = ["operator", "staff"];
const everyRole: readonly ServiceRole[] = ["operator", "staff", "front"];
/** A remote region's DataService: the front's hop, and operators (support reads, data repair). */
const regionData: readonly ServiceRole[] = ["front", "operator"];
/** What only a partner does (place, cancel, the sandbox helper): the front's hop carries the partner's app. */
const partnerOnly: readonly ServiceRole[] = ["front"];
/** The merchant's moves of an online order: the point of sale's, no one else's (a front cannot accept an order). */
const pointOfSale: readonly ServiceRole[] = ["pos"];
/** Orders as the point of sale reads them, beside the front's hop and operators. */
const orderReaders: readonly ServiceRole[] = ["front", "operator", "pos"];

/** Service full name → method name (as in the proto) → who may call it. */
export type AccessPolicy = Readonly<Record<string, Readonly<Record<string, Admission>>>>;

export const accessPolicy: AccessPolicy = {
  [TokenService.typeName]: {
    ExchangeToken: none,
    // Public only (the front, client-authenticated); no internal caller pushes authorization requests.
    PushAuthorizationRequest: none,
    RevokeToken: none,
    MintSandboxToken: none,
    GetJwks: everyRole,
    GetAuthorizationServerMetadata: everyRole,
    RotateSigningKey: operator,
  },
  [GrantService.typeName]: {
    ListGrants: operatorOrStaff,
    RevokeGrant: operator,
    CreateAccessRequest: operator,
    GetAccessRequest: operatorOrStaff,
    ListAccessRequests: operatorOrStaff,
    // The merchant's owner decides (the platform's back office calls these for them, as an operator).
    ApproveAccessRequest: operator,
    DeclineAccessRequest: operator,
    WithdrawAccessRequest: operator,
  },
  [CredentialService.typeName]: {
    VerifyClientCredentials: none,
    VerifyApiKey: none,
    VerifyMerchantUser: none,
    CreateOrganization: operator,
    CreateApp: operator,
    GetApp: operatorOrStaff,
    UpdateApp: operator,
    SubmitApp: operator,
    // Review is staff's alone: whoever provisions an app does not also approve it.
    ApproveApp: staff,
    RejectApp: staff,
    ArchiveApp: operatorOrStaff,
    SetRedirectUris: operator,
    RotateClientSecret: operator,
    RevealProductionSecret: operator,
    RevokeClientCredential: operatorOrStaff,
    SetIpAllowlist: operator,
    CreateApiKey: operator,
    RevokeApiKey: operatorOrStaff,
    CreateMerchant: operator,
    GetMerchant: operatorOrStaff,
    UpdateMerchantStatus: operator,
    CreateMerchantUser: operator,
    ProvisionSandboxMerchant: operator,
    ListSandboxMerchants: operatorOrStaff,
  },
  [DataService.typeName]: {
    ListStores: regionData,
    GetStore: orderReaders,
    UpdateStoreDetails: pointOfSale,
    SetStoreOnlineOrdering: pointOfSale,
    SetSandboxStoreOnlineOrdering: partnerOnly,
    SetSandboxStoreOpeningHours: partnerOnly,
    ListItems: regionData,
    CreateItem: regionData,
    UpdateItem: regionData,
    GetItem: regionData,
    DeleteItem: regionData,
    SetItemAvailability: regionData,
    SetModifierAvailability: regionData,
    ListCategories: regionData,
    CreateCategory: regionData,
    UpdateCategory: regionData,
    ListOnlineOrders: orderReaders,
    GetOnlineOrder: orderReaders,
    PlaceOnlineOrder: partnerOnly,
    CancelOnlineOrder: partnerOnly,
    MoveSandboxOnlineOrder: partnerOnly,
    AcceptOnlineOrder: pointOfSale,
    RejectOnlineOrder: pointOfSale,
    MarkOnlineOrderReady: pointOfSale,
    CompleteOnlineOrder: pointOfSale,
    CancelOnlineOrderAsMerchant: pointOfSale,
    ListOnlineOrderEvents: ["pos", "operator"],
    GetDailySalesReport: regionData,
    GetSalesByStoreReport: regionData,
  },
  [ConsoleService.typeName]: {
    SignUp: none,
    VerifyEmail: none,
    RequestPasswordReset: none,
    ResetPassword: none,
    SignIn: none,
    RefreshSession: none,
    SignOut: none,
    GetAccount: none,
    SubmitProgramApplication: none,
    GetActiveAgreement: none,
    SignAgreement: none,
    DecideProgramApplication: staff,
    ListProgramApplications: staff,
    PublishAgreementVersion: staff,
    SetAccountSuspended: staff,
    CreateDeveloperOrganization: none,
    ListDeveloperOrganizations: none,
    ListOrganizationMembers: none,
    UpdateOrganizationMember: none,
    RemoveOrganizationMember: none,
    CreateOrganizationInvitation: none,
    ListOrganizationInvitations: none,
    ResendOrganizationInvitation: none,
    RevokeOrganizationInvitation: none,
    PreviewOrganizationInvitation: none,
    AcceptOrganizationInvitation: none,
    CreateDeveloperApp: none,
    ListDeveloperApps: none,
    GetDeveloperApp: none,
    UpdateDeveloperApp: none,
    SubmitDeveloperApp: none,
    ArchiveDeveloperApp: none,
    RotateAppClientSecret: none,
    RevealProductionCredentials: none,
    SetAppRedirectUris: none,
    SetAppClientIpAllowlist: none,
    CreateAppApiKey: none,
    RevokeAppApiKey: none,
    SetAppApiKeyIpAllowlist: none,
    ProvisionOrganizationSandboxMerchant: none,
    ListOrganizationSandboxMerchants: none,
    SetOrganizationSandboxMerchantActive: none,
    CreateAppAccessRequest: none,
    ListAppAccessRequests: none,
    ListAppRequestLog: none,
    GetAppRequestLogEntry: none,
    GetAppUsage: none,
    ListAppWebhookEndpoints: none,
    CreateAppWebhookEndpoint: none,
    DeleteAppWebhookEndpoint: none,
    EnableAppWebhookEndpoint: none,
    RotateAppWebhookSecret: none,
    SendAppTestWebhook: none,
    ListAppWebhookDeliveries: none,
    ResendAppWebhookDelivery: none,
  },
  "grpc.health.v1.Health": { Check: "anonymous", Watch: "anonymous", List: "anonymous" },
  "grpc.reflection.v1.ServerReflection": { ServerReflectionInfo: "anonymous" },
  "grpc.reflection.v1alpha.ServerReflection": { ServerReflectionInfo: "anonymous" },
};

/** Raised at start when the served services and the table disagree. */
export class AccessPolicyError extends Error {
  override name = "AccessPolicyError";
}

/**
 * Checks that every method of `services` has an entry, and that every entry of a served service names a method
 * of it (a renamed RPC must not leave a stale row admitting nobody or the wrong roles). Throws naming each one.
 */
export function checkAccessPolicy(services: readonly DescService[], policy: AccessPolicy = accessPolicy): void {
  const problems: string[] = [];
  for (const service of services) {
    const entries = policy[service.typeName] ?? {};
    const names = new Set(service.methods.map((method) => method.name));
    for (const name of names)
      if (!Object.hasOwn(entries, name)) problems.push(`${service.typeName}/${name} has no entry`);
    for (const name of Object.keys(entries))
      if (!names.has(name)) problems.push(`${service.typeName}/${name} is not an RPC`);
  }
  if (problems.length > 0) throw new AccessPolicyError(`internal access policy: ${problems.join("; ")}`);
}

/** The admission of one RPC; an RPC without an entry admits nobody (checkAccessPolicy keeps that from happening). */
export function admissionOf(serviceName: string, methodName: string, policy: AccessPolicy = accessPolicy): Admission {
  const entries = policy[serviceName];
  return entries && Object.hasOwn(entries, methodName) ? entries[methodName]! : none;
}
