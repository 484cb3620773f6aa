// Request schemas derived from descriptors: path variables bound by proto name, fields by their JSON (wire) name.
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { GetAppRequestSchema } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { UpdateItemRequestSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { TextKind } from "../../gen/partnerapi/v1/options_pb.js";
import { Product } from "../../gen/partnerapi/v1/credential_service_pb.js";
import {
  CreateDeveloperAppRequestSchema,
  GetDeveloperAppRequestSchema,
} from "../../gen/partnerapi/v1/console_service_pb.js";
import { createRequestSchema, textProblem } from "../../src/runtime/wire/index.js";

const RequestSchema = suite("runtime/request-schema");

RequestSchema("a multi-word path variable ({app_id}) binds to its field and validates", () => {
  const schema = createRequestSchema(GetAppRequestSchema, ["app_id"]);
  assert.equal(schema.validate({}, "text", { app_id: "app_1" }), { ok: true, value: { appId: "app_1" } });
  assert.equal(schema.validate({ appId: "app_2" }, "text", { app_id: "app_1" }), {
    ok: false,
    violations: [{ field: "appId", rule: "is not a known field" }],
  });
});

RequestSchema("a path integer is parsed from text, and a body cannot set it again", () => {
  const schema = createRequestSchema(UpdateItemRequestSchema, ["id"]);
  assert.equal(schema.validate({ name: "Tea" }, "json", { id: "7" }), { ok: true, value: { name: "Tea", id: 7 } });
  assert.equal(schema.validate({}, "json", { id: "x" }), {
    ok: false,
    violations: [{ field: "id", rule: "must be an integer" }],
  });
});

RequestSchema(
  "what a string may hold, by kind: every string valid Unicode without NUL; names also without control or bidirectional controls; free text keeps lines; secrets only the first rule",
  () => {
    for (const kind of [TextKind.UNSPECIFIED, TextKind.MULTILINE, TextKind.SECRET]) {
      assert.is(textProblem("a\ud800", kind), "must not contain lone surrogates (invalid Unicode)");
      assert.is(textProblem("\udc00a", kind), "must not contain lone surrogates (invalid Unicode)");
      assert.is(textProblem("a\u0000", kind), "must not contain NUL characters");
      assert.is(textProblem("Tea 😀 \u200F", kind), undefined);
    }
    for (const control of ["\u0001", "\u001F", "\u007F", "\u0080", "\u009F", "\u000B"]) {
      assert.is(textProblem(`a${control}`), "must not contain control characters", JSON.stringify(control));
      assert.is(textProblem(`a${control}`, TextKind.MULTILINE), "must not contain control characters");
      assert.is(textProblem(`a${control}`, TextKind.SECRET), undefined);
    }
    for (const line of ["\n", "\r", "\t"]) {
      assert.is(textProblem(`a${line}b`), "must not contain control characters");
      assert.is(textProblem(`a${line}b`, TextKind.MULTILINE), undefined);
    }
    for (const bidi of ["\u202A", "\u202E", "\u2066", "\u2069"]) {
      assert.is(textProblem(`a${bidi}`), "must not contain bidirectional control characters");
      assert.is(textProblem(`a${bidi}`, TextKind.MULTILINE), "must not contain bidirectional control characters");
      assert.is(textProblem(`a${bidi}`, TextKind.SECRET), undefined);
    }
    // The check stops the others: one violation per field, not also "must be at most 64 characters".
    const schema = createRequestSchema(GetDeveloperAppRequestSchema);
    assert.equal(schema.validate({ appId: "x".repeat(100) }, "json", {}), {
      ok: false,
      violations: [{ field: "appId", rule: "must be at most 64 characters" }],
    });
    assert.equal(schema.validate({ appId: `${"x".repeat(100)}\u0000` }, "json", {}), {
      ok: false,
      violations: [{ field: "appId", rule: "must not contain NUL characters" }],
    });
  },
);

RequestSchema("an enum's spelling is decoded once, to the number the message holds; proto names are refused", () => {
  const schema = createRequestSchema(CreateDeveloperAppRequestSchema);
  const result = schema.validate({ organizationId: 3, name: "App", product: "ONLINE_ORDER" }, "json", {});
  assert.equal(result, { ok: true, value: { organizationId: 3, name: "App", product: Product.ONLINE_ORDER } });
  const input = fromJson(CreateDeveloperAppRequestSchema, result.ok ? (result.value as JsonValue) : null);
  assert.is(input.product, Product.ONLINE_ORDER);
  const proto = schema.validate({ organizationId: 3, name: "App", product: "PRODUCT_ONLINE_ORDER" }, "json", {});
  assert.is(proto.ok, false);
  assert.equal(proto.ok ? [] : proto.violations.map((violation) => violation.field), ["product"]);
});

RequestSchema.run();
