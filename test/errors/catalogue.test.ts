// Walks the whole error catalogue: every code, every locale, every body shape, every declared param.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { Code } from "@connectrpc/connect";
import {
  catalogue,
  codeForGrpcStatus,
  entryOf,
  errorCodes,
  isClassified,
  isErrorCode,
  oauthErrorOf,
  oauthStatusOf,
  type ErrorCode,
} from "../../src/errors/catalogue.js";
import { supportedLocales } from "../../src/errors/locale.js";
import { templateParams } from "../../src/errors/message.js";
import { renderDeveloperError, renderOAuthError, renderPartnerError } from "../../src/errors/render.js";
import { detailsMetadataKey } from "../../src/errors/service-error.js";

const Catalogue = suite("errors/catalogue");

/** A value for each declared param that cannot appear in any template by accident. */
function sampleParams(code: ErrorCode): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const [name, kind] of Object.entries(entryOf(code).params ?? {})) {
    params[name] = kind === "number" ? 4321 : `VALUE_OF_${name}`;
  }
  return params;
}

const context = {
  path: "/v1/items",
  timestamp: "2026-01-01T00:00:00.000Z",
  correlationId: "6f1c2a4e-3b7d-4c1e-9a2f-1d2e3f4a5b6c",
};

Catalogue("every template of every locale uses exactly the declared params", () => {
  for (const code of errorCodes) {
    const declared = Object.keys(entryOf(code).params ?? {}).sort();
    for (const locale of supportedLocales) {
      const used = templateParams(entryOf(code).messages[locale]).sort();
      assert.equal(used, declared, `${code} (${locale})`);
    }
    for (const [header, template] of Object.entries(entryOf(code).headers ?? {})) {
      for (const param of templateParams(template)) {
        assert.ok(declared.includes(param), `${code} header ${header} uses undeclared {${param}}`);
      }
    }
    assert.not.ok(declared.includes(detailsMetadataKey), `${code} uses the reserved param name`);
  }
});

Catalogue("every code renders in every locale in every shape, with the table's status and no placeholder left", () => {
  for (const code of errorCodes) {
    const entry = entryOf(code);
    const params = sampleParams(code);
    for (const locale of supportedLocales) {
      const oauth = renderOAuthError({ code, params }, locale);
      const developer = renderDeveloperError({ code, params }, locale);
      const partner = renderPartnerError({ code, params }, locale, context);

      assert.is(oauth.status, oauthStatusOf(code), `${code} oauth status`);
      assert.is(developer.status, entry.status, `${code} developer status`);
      assert.is(partner.status, entry.status, `${code} partner status`);
      assert.is(partner.body.statusCode, entry.status);

      assert.is(oauth.body.code, code);
      assert.is(oauth.body.error, entry.oauth ?? "invalid_request");
      assert.is(developer.body.error.code, code);
      assert.is(partner.body.code, isClassified(code) ? code : undefined, `${code} partner code`);

      for (const message of [oauth.body.error_description, developer.body.error.message, partner.body.message]) {
        assert.ok(message.length > 0, `${code} (${locale}) empty message`);
        assert.not.match(message, /\{[A-Za-z0-9_]+\}/, `${code} (${locale}) unfilled placeholder`);
        for (const value of Object.values(params)) assert.ok(message.includes(String(value)), `${code} (${locale})`);
      }
      assert.equal(developer.body.error.params, params, `${code} developer params`);
      assert.equal(partner.body.params, params, `${code} partner params`);
      assert.is(oauth.headers["Content-Language"], locale);
    }
  }
});

Catalogue("messages differ between locales (every code is translated)", () => {
  for (const code of errorCodes) {
    const { en, ar, hi } = entryOf(code).messages;
    assert.is.not(ar, en, code);
    assert.is.not(hi, en, code);
    assert.match(ar, /[\u0600-\u06FF]/, `${code} Arabic script`);
    assert.match(hi, /[\u0900-\u097F]/, `${code} Devanagari script`);
  }
});

Catalogue("the spec's OAuth table: error values and statuses exactly", () => {
  const table: Array<[ErrorCode, string, number]> = [
    ["developer.invalid_client", "invalid_client", 401],
    ["oauth.invalid_request", "invalid_request", 400],
    ["oauth.unsupported_grant_type", "unsupported_grant_type", 400],
    ["oauth.code_invalid", "invalid_grant", 400],
    ["oauth.code_expired", "invalid_grant", 400],
    ["oauth.redirect_uri_mismatch", "invalid_grant", 400],
    ["oauth.pkce_failed", "invalid_grant", 400],
    ["oauth.refresh_invalid", "invalid_grant", 400],
    ["oauth.refresh_expired", "invalid_grant", 400],
    ["oauth.refresh_reused", "invalid_grant", 400],
    ["oauth.grant_revoked", "invalid_grant", 400],
    ["developer.use_oauth", "unauthorized_client", 400],
    ["developer.use_api_key", "unauthorized_client", 400],
  ];
  for (const [code, error, status] of table) {
    assert.is(oauthErrorOf(code), error, code);
    assert.is(oauthStatusOf(code), status, code);
    assert.is(entryOf(code).status, status, code);
  }
});

Catalogue("the spec's status tables, code by code", () => {
  const statuses: Record<string, number> = {
    "developer.email_not_verified": 403,
    "developer.too_many_attempts": 429,
    "developer.account_suspended": 403,
    "developer.refresh_reuse_detected": 401,
    "developer.nda_required": 403,
    "developer.nda_already_submitted": 409,
    "developer.nda_not_approved": 403,
    "developer.agreement_required": 403,
    "developer.agreement_version_stale": 409,
    "developer.not_org_member": 403,
    "developer.insufficient_org_role": 403,
    "developer.owner_immutable": 409,
    "developer.invite_invalid": 400,
    "developer.invite_expired": 400,
    "developer.invite_email_mismatch": 403,
    "developer.product_immutable": 409,
    "developer.app_archived": 403,
    "developer.app_not_approved": 403,
    "developer.review_not_in_review": 409,
    "developer.sandbox_limit": 409,
    "developer.sandbox_country_unknown": 400,
    "developer.invalid_client": 401,
    "developer.merchant_required": 400,
    "developer.merchant_not_found": 404,
    "developer.merchant_inactive": 403,
    "developer.grant_missing": 403,
    "developer.env_mismatch": 403,
    "developer.region_unconfigured": 503,
    "developer.use_oauth": 400,
    "developer.use_api_key": 400,
    "partner.scope_denied": 403,
    "partner.env_mismatch": 403,
    "partner.ip_denied": 403,
    "partner.grant_missing": 403,
    "partner.rate_limited": 429,
    "partner.window_too_large": 400,
    "partner.invalid_window": 400,
    "partner.order_not_found": 404,
    "partner.acting_user_unavailable": 409,
    "partner.api_key_invalid": 401,
    "partner.company_param_required": 400,
    "partner.company_not_granted": 403,
    "partner.api_key_product": 403,
    "partner.api_key_unavailable": 503,
    "db.duplicate": 409,
    "db.not_found": 404,
    "company.not_provisioned": 503,
    // consent screen and the codes the spec names without a status (ours; docs/error-codes.md says why)
    "oauth.client_not_found": 400,
    "oauth.state_required": 400,
    // RFC 9126 pushed authorization requests (consent page)
    "oauth.invalid_request_uri": 400,
    "oauth.pushed_request_required": 400,
    "oauth.pkce_method_unsupported": 400,
    "oauth.unsupported_response_mode": 400,
    "oauth.app_not_published": 403,
    "oauth.company_not_eligible": 403,
    "developer.api_key_limit": 409,
    "developer.access_request_exists": 409,
    // codes of ours
    "request.route_not_found": 404,
    "request.not_an_openid_provider": 404,
    "request.method_not_allowed": 405,
    "request.unsupported_media_type": 415,
    "request.body_too_large": 413,
    "request.headers_too_large": 431,
    "request.malformed_body": 400,
    "request.invalid_fields": 400,
    "oauth.rate_limited": 429,
    "developer.invalid_request": 400,
    "developer.unsupported_grant_type": 400,
    "developer.rate_limited": 429,
    "developer.app_not_found": 404,
    "developer.organization_not_found": 404,
    "developer.credential_not_found": 404,
    "developer.api_key_not_found": 404,
    "developer.redirect_uri_invalid": 400,
    "developer.app_link_invalid": 400,
    "developer.app_links_missing": 409,
    "developer.redirect_uri_limit": 409,
    "developer.ip_allowlist_invalid": 400,
    "developer.merchant_user_invalid": 400,
    "developer.access_request_not_found": 404,
    "developer.access_request_not_pending": 409,
    "developer.access_request_not_approved": 409,
    "developer.merchant_owner_required": 403,
    "partner.token_missing": 401,
    "partner.token_invalid": 401,
    "partner.region_unavailable": 503,
    // online orders' (docs/error-codes.md)
    "partner.order_status_conflict": 409,
    "partner.order_not_owned": 403,
    "partner.store_not_found": 404,
    "partner.store_not_in_scope": 403,
    "partner.item_not_found": 404,
    "partner.item_currency_mismatch": 409,
    "partner.order_requested_for_out_of_range": 400,
    "partner.order_customer_phone_required": 400,
    "partner.store_paused": 409,
    "partner.store_closed": 409,
    "partner.item_sold_out": 409,
    "partner.modifier_sold_out": 409,
    "partner.modifier_selections_out_of_range": 400,
    // the menu's (issue 39, docs/error-codes.md)
    "partner.invalid_time_zone": 400,
    "partner.opening_hours_invalid": 400,
    "partner.modifier_not_found": 404,
    "partner.modifier_group_invalid": 400,
    "partner.category_not_found": 404,
    "partner.category_items_mismatch": 409,
    "partner.feed_updated_from_invalid": 400,
    "partner.feed_cursor_invalid": 400,
    // the internal port's (docs/error-codes.md)
    "internal.unauthenticated": 401,
    "internal.permission_denied": 403,
    // the console's (docs/error-codes.md)
    "developer.unauthenticated": 401,
    "developer.sign_in_failed": 401,
    "developer.refresh_invalid": 401,
    "developer.password_too_weak": 400,
    "developer.link_invalid": 400,
    "developer.link_expired": 400,
    "developer.account_not_found": 404,
    "developer.program_application_not_found": 404,
    "developer.program_application_not_pending": 409,
    "developer.agreement_not_found": 404,
    "developer.member_not_found": 404,
    "developer.already_org_member": 409,
    "developer.invite_revoked": 400,
    "developer.invite_superseded": 400,
    "developer.invitation_not_found": 404,
    "developer.invitation_not_pending": 409,
    "developer.invitation_pending": 409,
    "developer.api_key_name_taken": 409,
    "developer.webhook_url_taken": 409,
    "developer.production_credentials_already_shown": 409,
    "oauth.code_replayed": 400,
    "oauth.ip_denied": 401,
    "developer.ip_denied": 403,
    "server.internal": 500,
    "server.unimplemented": 501,
    "server.unavailable": 503,
    "server.timeout": 504,
    "server.database_unavailable": 503,
    // webhooks (docs/error-codes.md)
    "developer.webhook_endpoint_not_found": 404,
    "developer.webhook_delivery_not_found": 404,
    "developer.webhook_url_invalid": 400,
    "developer.webhook_event_unknown": 400,
    "developer.webhook_endpoint_limit": 409,
    "developer.request_log_entry_not_found": 404,
    // DPoP (docs/error-codes.md)
    "oauth.dpop_proof_invalid": 400,
    "oauth.dpop_nonce_required": 400,
    "oauth.dpop_key_mismatch": 400,
    "oauth.dpop_required": 400,
    "developer.dpop_proof_invalid": 400,
    "developer.dpop_nonce_required": 400,
    "developer.dpop_required": 400,
    "partner.dpop_proof_invalid": 401,
    "partner.dpop_nonce_required": 401,
    "partner.dpop_bound_token": 401,
    "partner.dpop_token_unbound": 401,
    "partner.dpop_required": 401,
  };
  for (const [code, status] of Object.entries(statuses)) {
    assert.ok(isErrorCode(code), `${code} missing from the catalogue`);
    assert.is(entryOf(code).status, status, code);
  }
  // Everything in the catalogue is accounted for above or in the OAuth table.
  const oauthTable = [
    "oauth.invalid_request",
    "oauth.unsupported_grant_type",
    "oauth.code_invalid",
    "oauth.code_expired",
    "oauth.redirect_uri_mismatch",
    "oauth.pkce_failed",
    "oauth.refresh_invalid",
    "oauth.refresh_expired",
    "oauth.refresh_reused",
    "oauth.grant_revoked",
  ];
  for (const code of errorCodes) assert.ok(code in statuses || oauthTable.includes(code), `${code} not in a table`);
});

Catalogue("gRPC codes follow the HTTP status", () => {
  const allowed: Record<number, Code[]> = {
    400: [Code.InvalidArgument, Code.FailedPrecondition],
    401: [Code.Unauthenticated],
    403: [Code.PermissionDenied],
    404: [Code.NotFound],
    405: [Code.Unimplemented],
    409: [Code.AlreadyExists, Code.Aborted, Code.FailedPrecondition, Code.ResourceExhausted],
    413: [Code.ResourceExhausted],
    431: [Code.ResourceExhausted],
    415: [Code.InvalidArgument],
    429: [Code.ResourceExhausted],
    500: [Code.Internal],
    501: [Code.Unimplemented],
    503: [Code.Unavailable],
    504: [Code.DeadlineExceeded],
  };
  for (const code of errorCodes) {
    const { status, grpc } = entryOf(code);
    assert.ok(allowed[status]?.includes(grpc), `${code}: ${status} with gRPC ${Code[grpc]}`);
  }
  assert.is(entryOf("developer.merchant_required").grpc, Code.InvalidArgument);
  assert.is(entryOf("developer.review_not_in_review").grpc, Code.FailedPrecondition);
  assert.is(entryOf("server.timeout").grpc, Code.DeadlineExceeded);
});

Catalogue("5xx: OAuth error by RFC 6749 §4.1.2.1, and no internals in the message", () => {
  for (const code of errorCodes) {
    const { status, oauth } = entryOf(code);
    if (status < 500) continue;
    assert.is(oauth, status === 503 ? "temporarily_unavailable" : "server_error", code);
    assert.not.match(entryOf(code).messages.en, /database|postgres|redis|grpc|exception|stack|region/i, code);
  }
  assert.is(entryOf("server.unimplemented").messages.en, "This operation is not available yet.");
});

Catalogue("only validation and unexpected failures are unclassified", () => {
  const unclassified = errorCodes.filter((code) => !isClassified(code));
  assert.equal(unclassified.sort(), ["request.invalid_fields", "server.internal"]);
});

Catalogue("every code that renders on /v1/oauth/* names its OAuth error", () => {
  const onOAuthEndpoints = errorCodes.filter(
    (code) =>
      code.startsWith("request.") ||
      code.startsWith("server.") ||
      (code.startsWith("oauth.") && entryOf(code).status !== 403) ||
      [
        "developer.invalid_client",
        "developer.use_oauth",
        "developer.use_api_key",
        "developer.merchant_required",
        "developer.merchant_not_found",
        "developer.merchant_inactive",
        "developer.grant_missing",
        "developer.env_mismatch",
        "developer.app_archived",
        "developer.app_not_approved",
        "developer.region_unconfigured",
      ].includes(code),
  );
  for (const code of onOAuthEndpoints) assert.ok(entryOf(code).oauth, `${code} has no OAuth error`);
  assert.is(oauthErrorOf("partner.scope_denied"), "invalid_request");
});

Catalogue("OAuth statuses: 401 for invalid_client, 400 for client errors, HTTP-semantic ones kept", () => {
  assert.is(oauthStatusOf("developer.invalid_client"), 401);
  assert.is(oauthStatusOf("developer.grant_missing"), 400); // 403 elsewhere; RFC 6749 §5.2 says 400
  assert.is(oauthStatusOf("developer.merchant_not_found"), 400);
  assert.is(oauthStatusOf("request.route_not_found"), 404);
  assert.is(oauthStatusOf("request.method_not_allowed"), 405);
  assert.is(oauthStatusOf("request.body_too_large"), 413);
  assert.is(oauthStatusOf("request.unsupported_media_type"), 415);
  assert.is(oauthStatusOf("oauth.rate_limited"), 429);
  assert.is(oauthStatusOf("server.timeout"), 504);
});

Catalogue("the rate-limit codes state the seconds to wait and send Retry-After", () => {
  for (const code of ["partner.rate_limited", "oauth.rate_limited", "developer.rate_limited"] as const) {
    assert.equal(catalogue[code].params, { retryAfter: "number" });
    const rendered = renderDeveloperError({ code, params: { retryAfter: 17 } }, "en");
    assert.match(rendered.body.error.message, /17 seconds/);
    assert.is(rendered.headers["Retry-After"], "17");
  }
});

Catalogue("a bare gRPC code maps onto a generic catalogue code", () => {
  assert.is(codeForGrpcStatus(Code.Unimplemented), "server.unimplemented");
  assert.is(codeForGrpcStatus(Code.Unavailable), "server.unavailable");
  assert.is(codeForGrpcStatus(Code.DeadlineExceeded), "server.timeout");
  assert.is(codeForGrpcStatus(Code.InvalidArgument), "request.malformed_body");
  for (const grpc of [Code.Unknown, Code.Internal, Code.NotFound, Code.PermissionDenied, Code.Unauthenticated]) {
    assert.is(codeForGrpcStatus(grpc), "server.internal", Code[grpc]);
  }
});

Catalogue("a code that is not in the catalogue does not compile", () => {
  // @ts-expect-error a typo in a code is a compile error
  const typo: ErrorCode = "partner.scope_denid";
  assert.not.ok(isErrorCode(typo));
});

Catalogue.run();
