// The OpenAPI 3.1 description of the public front, built once at start from the front's own route table: paths and
// methods from the google.api.http annotations, request schemas from the same descriptors and field rules the front
// validates with (requestJsonSchema), response schemas from the output messages as messageToJson writes them, and
// the error shape, security and rate-limit headers of each route's family. No second, hand-written list of routes.
// Paths are written whole (/v1/items, /.well-known/jwks.json) under one server, BASE_URL's origin: every generator
// resolves them the same way (openapi-fetch, for one, ignores path-level servers), so each documented operation
// is the real endpoint.
import { OnlineOrderSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import {
  errorCodes,
  oauthErrorOf,
  renderDeveloperError,
  renderOAuthError,
  renderPartnerError,
} from "../errors/index.js";
import { responseJsonSchemas, type JsonSchema } from "../runtime/wire/index.js";
import type { Family, Route, RouteTable } from "./route-table.js";
import { componentRef, errorResponseOf, operationOf, rateLimitHeaders, responseExamples } from "./openapi-operation.js";
import { menuSyncTag } from "./openapi-menu-sync.js";

export interface OpenApiOptions {
  /** BASE_URL, with its trailing slash: the document's one server is its origin. */
  baseUrl: string;
  /** AUTH_URL: the consent site, where the authorization endpoint is. */
  authUrl: string;
  /** The version of this deployment (package.json), the document's info.version. */
  version: string;
  /** The events the service sends to partners' endpoints (the document's `webhooks`), as the events owner has them. */
  events?: WebhookEventsDescription;
}

/**
 * The events as the events owner (src/events/) describes them, handed in by the composition root: the front only
 * transcodes and knows no owner (.dependency-cruiser.cjs, front-imports-no-owner).
 */
export interface WebhookEventsDescription {
  /** Every event type, in the order the document lists them. */
  types: readonly string[];
  /** One sentence per type. */
  descriptions: Readonly<Record<string, string>>;
  /** The component name of each type's `data` schema. */
  dataSchemaNames: Readonly<Record<string, string>>;
  /** The `data` schemas, by component name; `ref` names another component. */
  dataSchemas(ref: (typeName: string) => string): Record<string, JsonSchema>;
  /** The Standard Webhooks headers every delivery carries. */
  headers: Readonly<Record<string, { description: string; schema: JsonSchema }>>;
}

/** The path of the document itself, answered by the front outside the route table. */
export const openApiPath = "/v1/openapi.json";

/** A route's path in the document: the whole path under the server (BASE_URL's origin), as the route table has it. */
export function documentPathOf(route: Route): string {
  // Variables by JSON name ({organizationId}), as the wire and a validation failure name them; the template
  // itself names them by proto field name (google.api.http).
  const jsonNames = new Map(route.method.input.fields.map((field) => [field.name, field.jsonName]));
  return route.template.source.replace(/\{([a-z0-9_]+)\}/g, (_, name: string) => `{${jsonNames.get(name) ?? name}}`);
}

/** One error of the spec per shape, rendered by the renderer the front answers with (so never out of date). */
const errorExamples: Record<Family, unknown> = {
  // Spec, "OAuth body": a wrong client secret.
  oauth: renderOAuthError({ code: "developer.invalid_client" }, "en").body,
  // Spec, "POST /v1/token": several sandbox merchants and none named.
  developer: renderDeveloperError({ code: "developer.merchant_required" }, "en").body,
  // Spec, "Limits": over 300 requests in the minute.
  partner: renderPartnerError({ code: "partner.rate_limited", params: { retryAfter: 18 } }, "en", {
    path: "/v1/items",
    timestamp: "2026-01-15T10:00:42.000Z",
    correlationId: "0b6f3a52-3c1e-4f7e-9a43-1d2b5f8c9e10",
  }).body,
};

export function buildOpenApiDocument(table: RouteTable, options: OpenApiOptions): Record<string, unknown> {
  const schemas: Record<string, JsonSchema> = {};
  const usedExamples = new Set<string>();
  const scopes = [...new Set(table.routes.map((route) => route.scope).filter((scope) => scope !== ""))].sort();
  const paths: Record<string, Record<string, unknown>> = {};
  const origin = options.baseUrl.replace(/\/+$/, "");
  const { events } = options;

  for (const route of table.routes) {
    const path = documentPathOf(route);
    const item = paths[path] ?? {};
    paths[path] = item;
    item[route.httpMethod.toLowerCase()] = operationOf(route, schemas, usedExamples);
  }
  for (const typeName of Object.keys(responseExamples)) {
    if (!usedExamples.has(typeName)) throw new Error(`OpenAPI example for ${typeName}, which no route returns`);
  }
  // The order events carry the order as the routes answer it: the same component.
  responseJsonSchemas(OnlineOrderSchema, componentRef, schemas as Record<string, never>);

  return {
    openapi: "3.1.1",
    info: {
      title: "Partner API",
      version: options.version,
      description:
        "The partner API of the point-of-sale platform: OAuth 2.0 token endpoints, the developer console and the partner business routes. Built from the route table the service routes with.",
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    servers: [
      {
        url: origin,
        description:
          "BASE_URL: the API host. Partner calls build their URLs from the token answer's api_base_url, this host with /v1/.",
      },
    ],
    tags: [menuSyncTag],
    paths,
    webhooks: Object.fromEntries((events?.types ?? []).map((type) => [type, webhookOperation(events!, type)])),
    components: {
      schemas: { ...errorSchemas(), ...schemas, ...(events?.dataSchemas(componentRef) ?? {}) },
      responses: errorResponses(),
      parameters: Object.fromEntries(
        Object.entries(events?.headers ?? {}).map(([name, header]) => [
          name,
          { name, in: "header", required: true, ...header },
        ]),
      ),
      headers: headerComponents(),
      securitySchemes: securitySchemes(options, scopes),
    },
  };
}

/**
 * An event as the service sends it to a partner's endpoint (OpenAPI 3.1 `webhooks`): a POST of the Standard
 * Webhooks payload (`type`, `timestamp`, `data`) with its three signed headers; a 2xx within
 * WEBHOOK_TIMEOUT_SECONDS acknowledges it, anything else is retried on the schedule.
 */
function webhookOperation(events: WebhookEventsDescription, type: string): Record<string, unknown> {
  return {
    post: {
      operationId: `webhook.${type}`,
      summary: type,
      description: `${events.descriptions[type]} Verify the signature with a Standard Webhooks library (standardwebhooks.com); deduplicate by webhook-id; no order is promised between events (compare updatedAt).`,
      tags: ["Webhooks"],
      parameters: Object.keys(events.headers).map((name) => ({ $ref: `#/components/parameters/${name}` })),
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: {
                type: { type: "string", const: type },
                timestamp: { type: "string", format: "date-time", description: "When the change happened." },
                data: { $ref: componentRef(events.dataSchemaNames[type]!) },
              },
              required: ["type", "timestamp", "data"],
              additionalProperties: false,
            },
          },
        },
      },
      responses: {
        "2XX": { description: "Received: the delivery succeeded (the body is not read beyond 4 KiB)." },
        default: {
          description:
            "Any other status, a redirect (never followed) or no answer within the timeout: the attempt failed and is retried (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h by default).",
        },
      },
    },
  };
}

function securitySchemes(options: OpenApiOptions, scopes: string[]): Record<string, unknown> {
  const scopeMap = Object.fromEntries(scopes.map((scope) => [scope, `Partner scope ${scope}`]));
  return {
    partnerOAuth: {
      type: "oauth2",
      description:
        "Authorization code with PKCE (S256, recommended; RFC 7636) for production apps; client credentials for sandbox credentials only. The access token is a 900-second RS256 JWT for one merchant.",
      flows: {
        authorizationCode: {
          authorizationUrl: `${options.authUrl}/oauth/authorize`,
          tokenUrl: `${options.baseUrl}v1/oauth/token`,
          refreshUrl: `${options.baseUrl}v1/oauth/token`,
          scopes: scopeMap,
        },
        clientCredentials: { tokenUrl: `${options.baseUrl}v1/token`, scopes: scopeMap },
      },
    },
    bearerToken: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "An access token from the OAuth or sandbox token endpoint.",
    },
    dpopToken: {
      type: "http",
      scheme: "DPoP",
      description:
        "A DPoP-bound access token (RFC 9449: token_type DPoP, minted with a DPoP proof header at the token endpoint) as `Authorization: DPoP <token>`, with a `DPoP` header: a new proof for each call, signed by the same key, naming the method (htm), the URL without query (htu) and the token's hash (ath). Such a token sent as Bearer is refused (401 partner.dpop_bound_token).",
    },
    apiKey: {
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
      description: "An ADSR API key; every request then carries companyId.",
    },
    clientSecretBasic: {
      type: "http",
      scheme: "basic",
      description:
        "client_secret_basic (RFC 6749 section 2.3.1); or client_secret_post: client_id and client_secret in the body instead, never both.",
    },
    consoleSession: {
      type: "http",
      scheme: "bearer",
      description:
        "A console session access token (from /v1/console/session/sign-in); the routes that start a session or an account need none.",
    },
  };
}

function errorSchemas(): Record<string, JsonSchema> {
  const code = { type: "string", enum: errorCodes };
  const params = { type: "object", additionalProperties: { type: ["string", "number"] } };
  return {
    OAuthError: {
      type: "object",
      description: "RFC 6749 section 5.2 error body, with the service's code.",
      properties: {
        error: { type: "string", enum: [...new Set(errorCodes.map(oauthErrorOf))] },
        error_description: { type: "string" },
        code,
      },
      required: ["error", "error_description", "code"],
      additionalProperties: false,
    },
    DeveloperError: {
      type: "object",
      description: "The developer envelope of the console and POST /v1/token.",
      properties: {
        error: {
          type: "object",
          properties: { code, message: { type: "string" }, details: { type: ["object", "array"] }, params },
          required: ["code", "message", "details", "params"],
          additionalProperties: false,
        },
      },
      required: ["error"],
      additionalProperties: false,
    },
    PartnerError: {
      type: "object",
      description:
        "The partner envelope of the business routes; code is absent for unclassified failures (validation, unexpected).",
      properties: {
        status: { const: "error" },
        statusCode: { type: "integer" },
        timestamp: { type: "string", format: "date-time" },
        path: { type: "string" },
        message: { type: "string" },
        code,
        params,
        correlationId: { type: "string", format: "uuid" },
      },
      required: ["status", "statusCode", "timestamp", "path", "message", "params", "correlationId"],
      additionalProperties: false,
    },
  };
}

function errorResponses(): Record<string, unknown> {
  const response = (schema: keyof typeof errorResponseOf | "partnerCall", retry: boolean) => {
    const family: Family = schema === "partnerCall" ? "partner" : schema;
    const headers: Record<string, unknown> = { "Content-Language": { $ref: "#/components/headers/Content-Language" } };
    if (family === "oauth") {
      headers["WWW-Authenticate"] = {
        description: "Basic, on 401 invalid_client (RFC 6749 section 5.2).",
        schema: { type: "string" },
      };
      headers["Cache-Control"] = { schema: { type: "string", const: "no-store" } };
    }
    if (family === "partner") headers["X-Correlation-Id"] = { $ref: "#/components/headers/X-Correlation-Id" };
    if (schema === "partnerCall") Object.assign(headers, rateLimitHeaders);
    if (retry) headers["Retry-After"] = { $ref: "#/components/headers/Retry-After" };
    return {
      description: `An error in the ${family === "oauth" ? "OAuth" : family} shape.`,
      headers,
      content: {
        "application/json": { schema: { $ref: componentRef(errorResponseOf[family]) }, example: errorExamples[family] },
      },
    };
  };
  return {
    OAuthError: response("oauth", false),
    OAuthErrorRetry: response("oauth", true),
    DeveloperError: response("developer", false),
    DeveloperErrorRetry: response("developer", true),
    PartnerError: response("partner", false),
    PartnerErrorRetry: response("partner", true),
    PartnerCallError: response("partnerCall", false),
    PartnerCallErrorRetry: response("partnerCall", true),
  };
}

function headerComponents(): Record<string, unknown> {
  const integer = { type: "integer", minimum: 0 };
  return {
    "X-RateLimit-Limit": { description: "Requests allowed in the window (per app).", schema: integer },
    "X-RateLimit-Remaining": { description: "Requests left in the current window.", schema: integer },
    "X-RateLimit-Reset": { description: "Unix time in seconds when the window rolls over.", schema: integer },
    "Retry-After": { description: "Seconds to wait before retrying (RFC 9110 section 10.2.3).", schema: integer },
    "Content-Language": {
      description: "The locale of the message, negotiated from Accept-Language.",
      schema: { type: "string" },
    },
    "X-Correlation-Id": {
      description: "The request's correlation id, also in the body.",
      schema: { type: "string", format: "uuid" },
    },
  };
}
