// src/token/metadata.ts: the RFC 8414 authorization server metadata built from the configuration (loadConfig):
// every field and its exact value, and the JSON member names RFC 8414 §2 defines.
import { create, toJson } from "@bufbuild/protobuf";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { GetAuthorizationServerMetadataResponseSchema } from "../../gen/partnerapi/v1/token_service_pb.js";
import { loadConfig } from "../../src/config/config.js";
import { allScopes } from "../../src/credential/scopes.js";
import { authorizationServerMetadata } from "../../src/token/metadata.js";

const Metadata = suite("token/metadata");

const scopes = [
  "stores.read",
  "items.read",
  "items.write",
  "categories.read",
  "categories.write",
  "orders.read",
  "reports.read",
  "orders.write",
];

Metadata("RFC 8414 §2: every field from the default configuration", () => {
  assert.equal(authorizationServerMetadata(loadConfig({})), {
    issuer: "http://127.0.0.1:8080/",
    authorizationEndpoint: "http://127.0.0.1:8081/oauth/authorize",
    tokenEndpoint: "http://127.0.0.1:8080/v1/oauth/token",
    revocationEndpoint: "http://127.0.0.1:8080/v1/oauth/revoke",
    jwksUri: "http://127.0.0.1:8080/.well-known/jwks.json",
    grantTypesSupported: ["authorization_code", "refresh_token", "client_credentials"],
    responseTypesSupported: ["code"],
    responseModesSupported: ["query"],
    codeChallengeMethodsSupported: ["S256"],
    tokenEndpointAuthMethodsSupported: ["client_secret_basic", "client_secret_post"],
    revocationEndpointAuthMethodsSupported: ["client_secret_basic", "client_secret_post"],
    scopesSupported: scopes,
    authorizationResponseIssParameterSupported: true,
    pushedAuthorizationRequestEndpoint: "http://127.0.0.1:8080/v1/oauth/par",
    requirePushedAuthorizationRequests: false,
    dpopSigningAlgValuesSupported: ["ES256", "ES384", "PS256", "RS256", "EdDSA"],
  });
});

Metadata("the URLs follow BASE_URL (a trailing slash added) and AUTH_URL (trailing slashes dropped)", () => {
  const metadata = authorizationServerMetadata(
    loadConfig({ BASE_URL: "https://api.example.com", AUTH_URL: "https://auth.example.com/" }),
  );
  assert.is(metadata.issuer, "https://api.example.com/");
  assert.is(metadata.authorizationEndpoint, "https://auth.example.com/oauth/authorize");
  assert.is(metadata.tokenEndpoint, "https://api.example.com/v1/oauth/token");
  assert.is(metadata.revocationEndpoint, "https://api.example.com/v1/oauth/revoke");
  assert.is(metadata.jwksUri, "https://api.example.com/.well-known/jwks.json");
});

Metadata("a BASE_URL with a path keeps it in every endpoint", () => {
  const metadata = authorizationServerMetadata(loadConfig({ BASE_URL: "https://gw.example.com/partner/" }));
  assert.is(metadata.issuer, "https://gw.example.com/partner/");
  assert.is(metadata.tokenEndpoint, "https://gw.example.com/partner/v1/oauth/token");
  assert.is(metadata.jwksUri, "https://gw.example.com/partner/.well-known/jwks.json");
});

Metadata("the defaults follow HOST, PORT and AUTH_PORT; an IPv6 host is bracketed (RFC 3986 §3.2.2)", () => {
  const metadata = authorizationServerMetadata(loadConfig({ HOST: "::1", PORT: "9000", AUTH_PORT: "9001" }));
  assert.is(metadata.issuer, "http://[::1]:9000/");
  assert.is(metadata.authorizationEndpoint, "http://[::1]:9001/oauth/authorize");
});

Metadata("scopes_supported is the union of every product's bundle, each scope once", () => {
  const supported = authorizationServerMetadata(loadConfig({})).scopesSupported!;
  assert.equal(supported, allScopes());
  assert.is(new Set(supported).size, supported.length);
});

Metadata("as JSON the members carry the RFC 8414 §2 names (and RFC 9207 §3's), iss support as the literal true", () => {
  const json = toJson(
    GetAuthorizationServerMetadataResponseSchema,
    create(GetAuthorizationServerMetadataResponseSchema, authorizationServerMetadata(loadConfig({}))),
  );
  assert.equal(Object.keys(json as object).sort(), [
    "authorization_endpoint",
    "authorization_response_iss_parameter_supported",
    "code_challenge_methods_supported",
    "dpop_signing_alg_values_supported",
    "grant_types_supported",
    "issuer",
    "jwks_uri",
    "pushed_authorization_request_endpoint",
    "require_pushed_authorization_requests",
    "response_modes_supported",
    "response_types_supported",
    "revocation_endpoint",
    "revocation_endpoint_auth_methods_supported",
    "scopes_supported",
    "token_endpoint",
    "token_endpoint_auth_methods_supported",
  ]);
  assert.is((json as Record<string, unknown>)["authorization_response_iss_parameter_supported"], true);
  // RFC 9126 section 5: false is stated, not left out (required per app, never of every client).
  assert.is((json as Record<string, unknown>)["require_pushed_authorization_requests"], false);
  // RFC 9449 section 5.1: every algorithm a proof may use, ES256 first.
  assert.equal((json as Record<string, unknown>)["dpop_signing_alg_values_supported"], [
    "ES256",
    "ES384",
    "PS256",
    "RS256",
    "EdDSA",
  ]);
});

Metadata.run();
