// One route's operation in the OpenAPI document (./openapi.ts): its parameters or body from the same descriptors and
// field rules the front validates with, its answer and example, its errors by family, its security; and the
// components the operations and the document both name.
import { getOption, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { field as fieldOption, type ServiceCheckedRules } from "../../gen/partnerapi/v1/options_pb.js";
import {
  fieldJsonSchema,
  isRequiredField,
  requestJsonSchema,
  responseJsonSchemas,
  type JsonSchema,
} from "../runtime/wire/index.js";
import type { Family, Route } from "./route-table.js";
import { isMenuSyncRoute, menuSyncTagName } from "./openapi-menu-sync.js";

/** The path fields a route's template binds (proto field names, as the template spells them). */
function pathFieldsOf(route: Route): string[] {
  return route.template.segments.flatMap((segment) => ("variable" in segment ? [segment.variable] : []));
}

export const componentRef = (typeName: string) => `#/components/schemas/${typeName}`;

/** The error response of each family (spec, "Errors": three body shapes), a component each. */
export const errorResponseOf: Record<Family, string> = {
  oauth: "OAuthError",
  developer: "DeveloperError",
  partner: "PartnerError",
};

/** Statuses a family answers that the document names beside the 4XX/5XX defaults (catalogue statuses). */
const namedStatuses: Record<Family, string[]> = {
  // RFC 6749 section 5.2: invalid_client is 401 with WWW-Authenticate, the rest 400.
  oauth: ["400", "401", "429"],
  developer: ["400", "401", "429"],
  // Validation, authentication, scope/IP/environment, unknown order, rate limit, verification down.
  partner: ["400", "401", "403", "404", "429", "503"],
};

export const rateLimitHeaders = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
};

/** Examples from the spec, by the full name of the response message they show; a stale one stops the start. */
export const responseExamples: Record<string, Record<string, unknown>> = {
  // Spec, "Token response": an authorization-code exchange.
  "partnerapi.v1.ExchangeTokenResponse": {
    access_token: "eyJhbGciOiJSUzI1NiIsImtpZCI6IjIwMjYtMDEifQ.eyJzdWIiOiJscF9hcHBfcGsxIn0.c2lnbmF0dXJl",
    token_type: "Bearer",
    expires_in: 900,
    refresh_token: "lp_rt_8c1f0e2a9b7d4c3e",
    refresh_token_expires_in: 8640000,
    scope: "stores.read items.read items.write categories.read categories.write",
    merchant_id: 4211,
    api_base_url: "https://api.example.com/v1/",
  },
  // Spec, "POST /v1/oauth/revoke": ok whenever the client authenticates (RFC 7009).
  "partnerapi.v1.RevokeTokenResponse": { ok: true },
  // RFC 9126 section 2.2: a pushed authorization request's answer (201 Created).
  "partnerapi.v1.PushAuthorizationRequestResponse": {
    request_uri: "urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c",
    expires_in: 60,
  },
};

/**
 * One route's operation: its path and query parameters or its body (JSON and form), its answer (the output's schema,
 * added to `schemas`, with its example when there is one, noted in `usedExamples`), its errors and its security.
 */
export function operationOf(
  route: Route,
  schemas: Record<string, JsonSchema>,
  usedExamples: Set<string>,
): Record<string, unknown> {
  const pathFields = new Set(pathFieldsOf(route));
  const fieldsByName = new Map(route.method.input.fields.map((field) => [field.name, field]));
  const parameters: Record<string, unknown>[] = [...pathFields].map((name) => ({
    name: fieldsByName.get(name)!.jsonName,
    in: "path",
    required: true,
    schema: withRule(fieldJsonSchema(fieldsByName.get(name)!), ruleOf(fieldsByName.get(name)!)),
  }));
  const operation: Record<string, unknown> = {
    operationId: `${route.service.name}.${route.method.name}`,
    summary: route.method.name,
    tags: isMenuSyncRoute(route) ? [route.service.name, menuSyncTagName] : [route.service.name],
  };
  if (route.bodyIsRequest) {
    // Form and JSON bodies carry the same fields (request-body.ts); form values are text of the same types.
    const schema = withServiceCheckedRules(
      route.method.input,
      requestJsonSchema(route.method.input, (field) => !pathFields.has(field.name)),
    );
    const required = Array.isArray(schema["required"]) && schema["required"].length > 0;
    operation["requestBody"] = {
      required,
      content: { "application/json": { schema }, "application/x-www-form-urlencoded": { schema } },
    };
  } else {
    for (const field of route.method.input.fields) {
      if (pathFields.has(field.name) || !sendableInQuery(field)) continue;
      const rule = ruleOf(field);
      const parameter: Record<string, unknown> = {
        name: field.jsonName,
        in: "query",
        schema: withRule(fieldJsonSchema(field), rule),
      };
      if (isRequiredField(field) || rule?.required) parameter["required"] = true;
      parameters.push(parameter);
    }
  }
  if (parameters.length > 0) operation["parameters"] = parameters;

  responseJsonSchemas(route.method.output, componentRef, schemas as Record<string, never>);
  const example = responseExamples[route.method.output.typeName];
  if (example) usedExamples.add(route.method.output.typeName);
  const successHeaders: Record<string, unknown> = {};
  if (route.cacheControl) successHeaders["Cache-Control"] = { schema: { type: "string", const: route.cacheControl } };
  if (route.partnerCall) Object.assign(successHeaders, rateLimitHeaders);
  const responses: Record<string, unknown> = {
    [String(route.successStatus)]: {
      description: `${route.method.output.name}`,
      ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders } : {}),
      content: {
        [route.contentType]: {
          schema: { $ref: componentRef(route.method.output.typeName) },
          ...(example ? { example } : {}),
        },
      },
    },
  };
  const error = route.partnerCall ? "PartnerCallError" : errorResponseOf[route.family];
  for (const status of [...namedStatuses[route.family], "4XX", "5XX"]) {
    responses[status] = {
      $ref: `#/components/responses/${status === "429" || status === "503" ? `${error}Retry` : error}`,
    };
  }
  operation["responses"] = responses;
  const security = securityOf(route);
  if (security) operation["security"] = security;
  return operation;
}

/** Query strings carry text: an object field cannot be sent there (src/runtime/wire/request.ts refuses it). */
function sendableInQuery(field: DescField): boolean {
  return field.fieldKind !== "message" && !(field.fieldKind === "list" && field.listKind === "message");
}

/**
 * Who may call a route (spec, "Authentication"); undefined for an anonymous one. A list of alternatives: `{}` among
 * them means "none of these", so it appears only where the credentials may come in the body instead.
 */
function securityOf(route: Route): Record<string, string[]>[] | undefined {
  if (route.partnerCall) {
    // An OAuth (or sandbox client-credentials) access token as a bearer JWT, or DPoP-bound with a proof (RFC 9449),
    // or an ADSR API key.
    const scopes = route.scope ? [route.scope] : [];
    return [{ partnerOAuth: scopes }, { bearerToken: [] }, { dpopToken: [] }, { apiKey: [] }];
  }
  if (route.family === "oauth") return [{ clientSecretBasic: [] }, {}]; // or client_secret_post: in the body
  if (route.template.source.startsWith("/v1/console/")) {
    // Sign-up, sign-in and the rest that start an account or a session need none; every other console route needs one.
    return route.sessionFree ? undefined : [{ consoleSession: [] }];
  }
  if (route.family === "developer") return [{ clientSecretBasic: [] }, {}]; // POST /v1/token, as the OAuth endpoints
  return undefined; // anonymous documents (/.well-known)
}

/** The rules of a field its service checks itself ((partnerapi.v1.field).service_checked), if it has any. */
function ruleOf(field: DescField): ServiceCheckedRules | undefined {
  return getOption(field, fieldOption).serviceChecked;
}

/** A field's schema with the rules its service checks stated on it. */
function withRule(schema: JsonSchema, rule: ServiceCheckedRules | undefined): JsonSchema {
  if (!rule) return schema;
  const stated: JsonSchema = { ...schema };
  if (rule.format) stated["format"] = rule.format;
  if (rule.minLength !== undefined) stated["minLength"] = Math.max(rule.minLength, Number(schema["minLength"] ?? 0));
  return stated;
}

/** A request body's schema with the service-checked rules of its fields: formats, lengths, required fields. */
function withServiceCheckedRules(message: DescMessage, schema: JsonSchema): JsonSchema {
  const properties = { ...(schema["properties"] as Record<string, JsonSchema>) };
  const required = new Set((schema["required"] as string[] | undefined) ?? []);
  for (const field of message.fields) {
    if (!(field.jsonName in properties)) continue;
    const rule = ruleOf(field);
    properties[field.jsonName] = withRule(properties[field.jsonName]!, rule);
    if (rule?.required) required.add(field.jsonName);
  }
  const requiredList = message.fields.map((field) => field.jsonName).filter((name) => required.has(name));
  return { ...schema, properties, ...(requiredList.length > 0 ? { required: requiredList } : {}) };
}
