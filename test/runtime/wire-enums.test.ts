// src/runtime/wire/spelling.ts: the spec's spellings of every enum on the public wire, both ways, the zero value never.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { OrganizationRoleSchema, ProgramApplicationStateSchema } from "../../gen/partnerapi/v1/console_service_pb.js";
import { EnvironmentSchema, ProductSchema } from "../../gen/partnerapi/v1/credential_service_pb.js";
import {
  enumNumberOf,
  protoEnumName,
  wireEnumName,
  wireEnumNameOf,
  wireEnumValues,
} from "../../src/runtime/wire/index.js";

const WireEnums = suite("runtime/wire-enums");

WireEnums("the values a request may send: the proto names without the prefix, no zero value", () => {
  assert.equal(wireEnumValues(ProductSchema), ["FULL", "ONLINE_ORDER", "ADSR"]);
  assert.equal(wireEnumValues(EnvironmentSchema), ["SANDBOX", "PRODUCTION"]);
  assert.equal(wireEnumValues(OrganizationRoleSchema), ["OWNER", "ADMIN", "DEVELOPER", "VIEWER"]);
  assert.equal(wireEnumValues(ProgramApplicationStateSchema), ["PENDING", "APPROVED", "DECLINED"]);
});

WireEnums("both ways: wire <-> proto name and number; the zero value, unknown names and numbers are undefined", () => {
  assert.is(protoEnumName(ProductSchema, "ONLINE_ORDER"), "PRODUCT_ONLINE_ORDER");
  assert.is(protoEnumName(ProductSchema, "PRODUCT_FULL"), undefined);
  assert.is(protoEnumName(ProductSchema, "UNSPECIFIED"), undefined);
  assert.is(protoEnumName(ProductSchema, "full"), undefined);
  assert.is(wireEnumNameOf(OrganizationRoleSchema, "ORGANIZATION_ROLE_OWNER"), "OWNER");
  assert.is(wireEnumNameOf(OrganizationRoleSchema, "ORGANIZATION_ROLE_UNSPECIFIED"), undefined);
  assert.is(wireEnumName(ProgramApplicationStateSchema, 2), "APPROVED");
  assert.is(wireEnumName(ProgramApplicationStateSchema, 0), undefined);
  assert.is(wireEnumName(ProgramApplicationStateSchema, 99), undefined);
});

WireEnums("a spelling back to its number, the inverse of wireEnumName; nothing else reads as one", () => {
  for (const descriptor of [ProductSchema, EnvironmentSchema, OrganizationRoleSchema, ProgramApplicationStateSchema]) {
    for (const value of descriptor.values.filter((candidate) => candidate.number !== 0))
      assert.is(enumNumberOf(descriptor, wireEnumName(descriptor, value.number)!), value.number);
  }
  assert.is(enumNumberOf(ProgramApplicationStateSchema, "APPROVED"), 2);
  assert.is(enumNumberOf(ProductSchema, "PRODUCT_FULL"), undefined);
  assert.is(enumNumberOf(ProductSchema, "UNSPECIFIED"), undefined);
  assert.is(enumNumberOf(ProductSchema, "full"), undefined);
});

WireEnums.run();
