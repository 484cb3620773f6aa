// Exact status, headers and body of each error shape: OAuth body, developer envelope, partner envelope.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { renderDeveloperError, renderOAuthError, renderPartnerError } from "../../src/errors/render.js";

const Render = suite("errors/render");

const context = {
  path: "/v1/reports/daily-sales",
  timestamp: "2026-01-01T00:00:00.000Z",
  correlationId: "0b6c3f1e-5d2a-4e8b-9c7d-2a1b3c4d5e6f",
};

Render("OAuth: invalid_client is 401 with WWW-Authenticate: Basic and no-store", () => {
  assert.equal(renderOAuthError({ code: "developer.invalid_client" }, "en"), {
    status: 401,
    headers: {
      "WWW-Authenticate": "Basic",
      "Cache-Control": "no-store",
      Pragma: "no-cache",
      "Content-Language": "en",
    },
    body: {
      error: "invalid_client",
      error_description: "Client authentication failed.",
      code: "developer.invalid_client",
    },
  });
});

Render("OAuth: invalid_grant is 400, localised, no-store", () => {
  assert.equal(renderOAuthError({ code: "oauth.code_expired" }, "ar"), {
    status: 400,
    headers: { "Cache-Control": "no-store", Pragma: "no-cache", "Content-Language": "ar" },
    body: {
      error: "invalid_grant",
      error_description: "انتهت صلاحية رمز التفويض. ابدأ عملية التفويض من جديد.",
      code: "oauth.code_expired",
    },
  });
});

Render("OAuth: a request.* code keeps its HTTP status and renders as invalid_request", () => {
  const rendered = renderOAuthError({ code: "request.method_not_allowed", params: { allow: "POST" } }, "en");
  assert.is(rendered.status, 405);
  assert.is(rendered.headers.Allow, "POST");
  assert.is(rendered.body.error, "invalid_request");
  assert.is(rendered.body.error_description, "This method is not allowed here. Allowed methods: POST.");
});

Render("OAuth: a code without an OAuth error renders as invalid_request, 400", () => {
  const rendered = renderOAuthError({ code: "partner.scope_denied" }, "en");
  assert.is(rendered.status, 400);
  assert.is(rendered.body.error, "invalid_request");
});

Render("OAuth: 5xx keeps its status with server_error or temporarily_unavailable", () => {
  assert.is(renderOAuthError({ code: "server.internal" }, "en").body.error, "server_error");
  assert.is(renderOAuthError({ code: "server.internal" }, "en").status, 500);
  assert.is(renderOAuthError({ code: "server.unavailable" }, "en").body.error, "temporarily_unavailable");
  assert.is(renderOAuthError({ code: "server.unavailable" }, "en").status, 503);
});

Render("developer envelope: code, message, details, params", () => {
  const details = [{ field: "redirect_uris[0]", rule: "https_required" }];
  assert.equal(
    renderDeveloperError(
      {
        code: "developer.redirect_uri_invalid",
        params: { field: "redirect_uris[0]", rule: "https_required" },
        details,
      },
      "en",
    ),
    {
      status: 400,
      headers: { "Content-Language": "en" },
      body: {
        error: {
          code: "developer.redirect_uri_invalid",
          message: "The redirect URI in redirect_uris[0] is not allowed (https_required).",
          details: [{ field: "redirect_uris[0]", rule: "https_required" }],
          params: { field: "redirect_uris[0]", rule: "https_required" },
        },
      },
    },
  );
});

Render("developer envelope: no details is [], no params is {}", () => {
  assert.equal(renderDeveloperError({ code: "developer.merchant_required" }, "hi").body, {
    error: {
      code: "developer.merchant_required",
      message: "merchant_id आवश्यक है, जब तक कि संगठन के पास ठीक एक सक्रिय sandbox व्यापारी न हो।",
      details: [],
      params: {},
    },
  });
});

Render("developer envelope: object details pass through; invalid_client 401 names Basic", () => {
  const rendered = renderDeveloperError({ code: "developer.invalid_client", details: { client_id: "unknown" } }, "en");
  assert.is(rendered.status, 401);
  assert.is(rendered.headers["WWW-Authenticate"], "Basic");
  assert.equal(rendered.body.error.details, { client_id: "unknown" });
});

Render("developer envelope: number params from the wire become numbers, undeclared params are dropped", () => {
  const rendered = renderDeveloperError(
    { code: "developer.api_key_limit", params: { limit: "5", internal: "x" } },
    "en",
  );
  assert.is(rendered.status, 409);
  assert.equal(rendered.body.error.params, { limit: 5 });
  assert.is(
    rendered.body.error.message,
    "The app already has the maximum of 5 API keys. Revoke one before creating another.",
  );
});

Render("partner envelope: classified code, params and correlation id", () => {
  assert.equal(renderPartnerError({ code: "partner.rate_limited", params: { retryAfter: "42" } }, "en", context), {
    status: 429,
    headers: {
      "Retry-After": "42",
      "Content-Language": "en",
      "X-Correlation-Id": "0b6c3f1e-5d2a-4e8b-9c7d-2a1b3c4d5e6f",
    },
    body: {
      status: "error",
      statusCode: 429,
      timestamp: "2026-01-01T00:00:00.000Z",
      path: "/v1/reports/daily-sales",
      message: "Rate limit exceeded. Wait 42 seconds before sending more requests.",
      code: "partner.rate_limited",
      params: { retryAfter: 42 },
      correlationId: "0b6c3f1e-5d2a-4e8b-9c7d-2a1b3c4d5e6f",
    },
  });
});

Render("partner envelope: validation failure has no code and names the fields", () => {
  const rendered = renderPartnerError(
    { code: "request.invalid_fields", params: { fields: "colour, size" } },
    "en",
    context,
  );
  assert.is(rendered.status, 400);
  assert.equal(rendered.body, {
    status: "error",
    statusCode: 400,
    timestamp: "2026-01-01T00:00:00.000Z",
    path: "/v1/reports/daily-sales",
    message: "Invalid or unknown fields: colour, size.",
    params: { fields: "colour, size" },
    correlationId: "0b6c3f1e-5d2a-4e8b-9c7d-2a1b3c4d5e6f",
  });
  assert.not.ok("code" in rendered.body);
});

Render("partner envelope: unexpected failure is a generic 500 without code", () => {
  const rendered = renderPartnerError({ code: "server.internal", params: {} }, "ar", context);
  assert.is(rendered.status, 500);
  assert.equal(rendered.body, {
    status: "error",
    statusCode: 500,
    timestamp: "2026-01-01T00:00:00.000Z",
    path: "/v1/reports/daily-sales",
    message: "حدث خطأ غير متوقع. يرجى المحاولة مرة أخرى لاحقًا.",
    params: {},
    correlationId: "0b6c3f1e-5d2a-4e8b-9c7d-2a1b3c4d5e6f",
  });
});

Render("partner envelope: missing and invalid tokens ask for a Bearer token (RFC 6750 §3)", () => {
  assert.is(renderPartnerError({ code: "partner.token_missing" }, "en", context).headers["WWW-Authenticate"], "Bearer");
  const invalid = renderPartnerError({ code: "partner.token_invalid" }, "en", context);
  assert.is(invalid.status, 401);
  assert.is(invalid.headers["WWW-Authenticate"], 'Bearer error="invalid_token"');
  assert.is(invalid.body.code, "partner.token_invalid");
});

Render("a header whose param is missing is left out", () => {
  const rendered = renderPartnerError({ code: "partner.rate_limited" }, "en", context);
  assert.not.ok("Retry-After" in rendered.headers);
  assert.equal(rendered.body.params, {});
});

Render.run();
