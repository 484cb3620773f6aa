// Request schemas derived from descriptors: path variables bound by proto name, fields by their JSON (wire) name.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { GetAppRequestSchema } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { UpdateItemRequestSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import { createRequestSchema } from "../../src/front/request-schema.js";

const RequestSchema = suite("front/request-schema");

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
  assert.equal(schema.validate({}, "json", { id: "x" }), { ok: false, violations: [{ field: "id", rule: "must be an integer" }] });
});

RequestSchema.run();
