// src/runtime/wire/answer.ts: a response message as the spec's JSON: protobuf JSON names, fields with implicit
// presence always present, unset optional fields absent, and 64-bit integers as JSON numbers at any depth.
import { create } from "@bufbuild/protobuf";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { GetOnlineOrderResponseSchema, ListStoresResponseSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { GetAccessRequestResponseSchema } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { ExchangeTokenResponseSchema } from "../../gen/partnerapi/v1/token_service_pb.js";
import { messageToJson, requestAsSent, responseJsonSchemas } from "../../src/runtime/wire/index.js";
import {
  CreateDeveloperAppRequestSchema,
  CreateDeveloperOrganizationResponseSchema,
  GetAccountResponseSchema,
  GetDeveloperAppResponseSchema,
  OrganizationRole,
  ProgramApplicationState,
  RequestLogEntrySchema,
  UpdateDeveloperAppRequestSchema,
} from "../../gen/partnerapi/v1/console_service_pb.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";

const MessageJson = suite("front/message-json");

MessageJson("token response: the spec's snake_case names; optional int64 merchant_id as a number", () => {
  const message = create(ExchangeTokenResponseSchema, {
    accessToken: "at",
    tokenType: "Bearer",
    expiresIn: 3600,
    refreshToken: "lp_rt_sb_x",
    refreshTokenExpiresIn: 86400,
    scope: "stores.read reports.read",
    merchantId: 42n,
    apiBaseUrl: "https://api.example.test",
  });
  assert.equal(messageToJson(ExchangeTokenResponseSchema, message), {
    access_token: "at",
    token_type: "Bearer",
    expires_in: 3600,
    refresh_token: "lp_rt_sb_x",
    refresh_token_expires_in: 86400,
    scope: "stores.read reports.read",
    merchant_id: 42,
    api_base_url: "https://api.example.test",
  });
});

MessageJson(
  "implicit-presence fields are always present, with their zero values; unset optional fields are absent",
  () => {
    const json = messageToJson(ExchangeTokenResponseSchema, create(ExchangeTokenResponseSchema));
    assert.equal(json, { access_token: "", token_type: "", expires_in: 0, scope: "", api_base_url: "" });
    assert.not.ok("merchant_id" in json);
    assert.not.ok("refresh_token" in json);
  },
);

MessageJson("repeated messages: an empty list is present; int64 ids inside list items are numbers", () => {
  assert.equal(messageToJson(ListStoresResponseSchema, create(ListStoresResponseSchema)), { stores: [] });
  const message = create(ListStoresResponseSchema, {
    stores: [
      { id: 1n, name: "Soho" },
      { id: 9007199254740991n, name: "Max" },
    ],
    nextCursor: "abc",
  });
  // A store's plain text fields are always there (empty when unset); its unset messages are left out.
  assert.equal(messageToJson(ListStoresResponseSchema, message), {
    stores: [
      { id: 1, name: "Soho", timeZone: "", updatedAt: "" },
      { id: 9007199254740991, name: "Max", timeZone: "", updatedAt: "" },
    ],
    nextCursor: "abc",
  });
});

MessageJson("nested messages and their lists: every int64 at every depth is a number, zero included", () => {
  const message = create(GetOnlineOrderResponseSchema, {
    order: {
      id: 3n,
      storeId: 7n,
      status: "PAID",
      totalMinor: 1250n,
      currency: "GBP",
      lines: [{ name: "Tea", quantity: 2, totalMinor: 500n, itemCode: "T1", unitPriceMinor: 250n }],
    },
  });
  assert.equal(messageToJson(GetOnlineOrderResponseSchema, message), {
    order: {
      id: 3,
      storeId: 7,
      status: "PAID",
      totalMinor: 1250,
      currency: "GBP",
      placedAt: "",
      lines: [{ name: "Tea", quantity: 2, totalMinor: 500, itemCode: "T1", unitPriceMinor: 250, modifiers: [] }],
      updatedAt: "",
    },
  });
  const zero = messageToJson(GetOnlineOrderResponseSchema, create(GetOnlineOrderResponseSchema, { order: {} }));
  assert.is((zero.order as { totalMinor: unknown }).totalMinor, 0);
});

MessageJson("repeated int64 scalars are lists of numbers; an unset message field is absent", () => {
  const message = create(GetAccessRequestResponseSchema, {
    accessRequest: { accessRequestId: "ar_1", appId: "app_1", companyId: 12n, storeIds: [1n, 2n], state: "PENDING" },
  });
  assert.equal(messageToJson(GetAccessRequestResponseSchema, message), {
    accessRequest: {
      accessRequestId: "ar_1",
      appId: "app_1",
      companyId: 12,
      storeIds: [1, 2],
      approvedStoreIds: [],
      state: "PENDING",
      createdAt: "",
      expiresAt: "",
    },
  });
  // Unset optional times are absent, never "" (docs/decisions.md, "One wire, spelled one way").
  const decided = create(GetAccessRequestResponseSchema, { accessRequest: { decidedAt: "2026-11-20T00:00:00.000Z" } });
  assert.is(
    (messageToJson(GetAccessRequestResponseSchema, decided)["accessRequest"] as Record<string, unknown>)["decidedAt"],
    "2026-11-20T00:00:00.000Z",
  );
  assert.equal(messageToJson(GetAccessRequestResponseSchema, create(GetAccessRequestResponseSchema)), {});
});

MessageJson(
  "enums in the spec's spellings (FULL, SANDBOX, OWNER, PENDING); the zero value absent; schemas agree",
  () => {
    const app = create(GetDeveloperAppResponseSchema, { app: { appId: "a", product: Product.FULL } });
    const json = messageToJson(GetDeveloperAppResponseSchema, app)["app"] as Record<string, unknown>;
    assert.is(json["product"], "FULL");
    const org = create(CreateDeveloperOrganizationResponseSchema, {
      organization: { organizationId: 1n, name: "o", role: OrganizationRole.OWNER },
    });
    assert.equal(messageToJson(CreateDeveloperOrganizationResponseSchema, org), {
      organization: { organizationId: 1, name: "o", role: "OWNER" },
    });
    const unset = create(CreateDeveloperOrganizationResponseSchema, {
      organization: { organizationId: 1n, name: "o" },
    });
    assert.equal(messageToJson(CreateDeveloperOrganizationResponseSchema, unset), {
      organization: { organizationId: 1, name: "o" },
    });
    const account = create(GetAccountResponseSchema, {
      account: { programApplicationState: ProgramApplicationState.PENDING },
    });
    assert.is(
      (messageToJson(GetAccountResponseSchema, account)["account"] as Record<string, unknown>)[
        "programApplicationState"
      ],
      "PENDING",
    );
    const schemas = responseJsonSchemas(CreateDeveloperOrganizationResponseSchema, (name) => name);
    const organization = schemas["partnerapi.v1.DeveloperOrganization"] as {
      properties: Record<string, unknown>;
      required: string[];
    };
    assert.equal(organization.properties["role"], { type: "string", enum: ["OWNER", "ADMIN", "DEVELOPER", "VIEWER"] });
    assert.equal(
      organization.required,
      ["organizationId", "name"],
      "an enum is absent at its zero value, so not required",
    );
  },
);

MessageJson(
  "the answer's text: keys in field-number order, as protobuf JSON writes them; NaN as the string NaN",
  () => {
    const entry = create(RequestLogEntrySchema, {
      id: 5n,
      atMs: 1700000000000n,
      method: "GET",
      path: "/v1/stores",
      status: 200,
      correlationId: "c",
      latencyMs: Number.NaN,
    });
    assert.is(
      JSON.stringify(messageToJson(RequestLogEntrySchema, entry)),
      '{"id":5,"atMs":1700000000000,"method":"GET","path":"/v1/stores","status":200,"errorCode":"","companyId":0,' +
        '"correlationId":"c","latencyMs":"NaN","errorBody":""}',
    );
  },
);

MessageJson("a request as a client would have sent it: zero values absent, int64 numbers, enums spelled", () => {
  const app = create(CreateDeveloperAppRequestSchema, { organizationId: 12n, name: "App", product: Product.ADSR });
  assert.equal(requestAsSent(CreateDeveloperAppRequestSchema, app), {
    organizationId: 12,
    name: "App",
    product: "ADSR",
  });
  assert.equal(requestAsSent(CreateDeveloperAppRequestSchema, create(CreateDeveloperAppRequestSchema)), {});
  // Beyond 2^53 the number is no longer the id, which the request schema refuses as out of range.
  const wide = create(CreateDeveloperAppRequestSchema, { organizationId: 9007199254740993n });
  assert.equal(requestAsSent(CreateDeveloperAppRequestSchema, wide), { organizationId: 9007199254740992 });
  // An enum set to its zero value (or to a number it lacks) stays as protobuf names it, which no spelling matches.
  const zero = create(UpdateDeveloperAppRequestSchema, { appId: "a", product: Product.UNSPECIFIED });
  assert.equal(requestAsSent(UpdateDeveloperAppRequestSchema, zero), { appId: "a", product: "PRODUCT_UNSPECIFIED" });
  const unknown = create(UpdateDeveloperAppRequestSchema, { appId: "a", product: 99 as Product });
  assert.equal(requestAsSent(UpdateDeveloperAppRequestSchema, unknown), { appId: "a", product: 99 });
});

MessageJson.run();
