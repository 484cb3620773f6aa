// src/front/render-error.ts: each route family gets its own error shape (OAuth body per RFC 6749 §5.2, developer
// envelope, partner envelope), in the locale negotiated from Accept-Language (RFC 9110 §12.5.4); and the code each
// family reports a validation failure with.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { isClassified, isErrorCode, oauthErrorOf } from "../../src/errors/index.js";
import { renderError, validationCode, type ErrorContext } from "../../src/front/render-error.js";

const RenderError = suite("front/render-error");

const base = {
  acceptLanguage: undefined,
  path: "/v1/items",
  timestamp: "2026-01-01T00:00:00.000Z",
  correlationId: "0b6c3f1e-5d2a-4e8b-9c7d-2a1b3c4d5e6f",
} satisfies Omit<ErrorContext, "family">;

RenderError("oauth family: the RFC 6749 §5.2 body with no-store, and nothing of the request's path or id", () => {
  assert.equal(renderError({ code: "oauth.rate_limited", params: { retryAfter: 7 } }, { ...base, family: "oauth" }), {
    status: 429,
    headers: { "Retry-After": "7", "Cache-Control": "no-store", Pragma: "no-cache", "Content-Language": "en" },
    body: {
      error: "invalid_request",
      error_description: "Too many token requests. Wait 7 seconds before trying again.",
      code: "oauth.rate_limited",
    },
  });
});

RenderError("oauth family: invalid_client is 401 with WWW-Authenticate: Basic (RFC 6749 §5.2)", () => {
  const rendered = renderError({ code: "developer.invalid_client" }, { ...base, family: "oauth" });
  assert.is(rendered.status, 401);
  assert.is(rendered.headers["WWW-Authenticate"], "Basic");
  assert.equal(rendered.body, {
    error: "invalid_client",
    error_description: "Client authentication failed.",
    code: "developer.invalid_client",
  });
});

RenderError("developer family: the envelope { error: { code, message, details, params } }", () => {
  const details = [{ field: "redirect_uri", rule: "https_required" }];
  assert.equal(
    renderError(
      { code: "developer.invalid_request", params: { fields: "redirect_uri" }, details },
      { ...base, family: "developer" },
    ),
    {
      status: 400,
      headers: { "Content-Language": "en" },
      body: {
        error: {
          code: "developer.invalid_request",
          message: "Some fields are missing or invalid: redirect_uri.",
          details,
          params: { fields: "redirect_uri" },
        },
      },
    },
  );
});

RenderError(
  "partner family: the envelope with the context's path, timestamp and correlation id, and X-Correlation-Id",
  () => {
    assert.equal(
      renderError({ code: "partner.rate_limited", params: { retryAfter: "39" } }, { ...base, family: "partner" }),
      {
        status: 429,
        headers: { "Retry-After": "39", "Content-Language": "en", "X-Correlation-Id": base.correlationId },
        body: {
          status: "error",
          statusCode: 429,
          timestamp: "2026-01-01T00:00:00.000Z",
          path: "/v1/items",
          message: "Rate limit exceeded. Wait 39 seconds before sending more requests.",
          code: "partner.rate_limited",
          params: { retryAfter: 39 },
          correlationId: base.correlationId,
        },
      },
    );
  },
);

RenderError(
  "the locale comes from Accept-Language in every family (RFC 9110 §12.5.4): ar-AE → ar, hi;q=0.9 → hi",
  () => {
    const oauth = renderError(
      { code: "oauth.code_expired" },
      { ...base, family: "oauth", acceptLanguage: "ar-AE, en;q=0.5" },
    );
    assert.is(oauth.headers["Content-Language"], "ar");
    assert.is(
      (oauth.body as { error_description: string }).error_description,
      "انتهت صلاحية رمز التفويض. ابدأ عملية التفويض من جديد.",
    );
    const partner = renderError(
      { code: "partner.rate_limited", params: { retryAfter: 5 } },
      { ...base, family: "partner", acceptLanguage: "fr, hi;q=0.9" },
    );
    assert.is(partner.headers["Content-Language"], "hi");
    assert.is(
      (partner.body as { message: string }).message,
      "अनुरोध सीमा पार हो गई है। और अनुरोध भेजने से पहले 5 सेकंड प्रतीक्षा करें।",
    );
    const developer = renderError(
      { code: "developer.invalid_request", params: { fields: "name" } },
      { ...base, family: "developer", acceptLanguage: "ar" },
    );
    assert.is(developer.headers["Content-Language"], "ar");
    assert.is(
      (developer.body as { error: { message: string } }).error.message,
      "بعض الحقول مفقودة أو غير صالحة: name.",
    );
  },
);

RenderError("no Accept-Language, or only unsupported languages, renders in English", () => {
  for (const acceptLanguage of [undefined, "", "fr-FR, de;q=0.8"]) {
    const rendered = renderError({ code: "partner.window_too_large" }, { ...base, family: "partner", acceptLanguage });
    assert.is(rendered.headers["Content-Language"], "en");
    assert.is((rendered.body as { message: string }).message, "The report window is longer than the maximum allowed.");
  }
});

RenderError("validationCode: oauth.invalid_request, developer.invalid_request, request.invalid_fields", () => {
  assert.equal(validationCode, {
    oauth: "oauth.invalid_request",
    developer: "developer.invalid_request",
    partner: "request.invalid_fields",
  });
  for (const code of Object.values(validationCode)) assert.ok(isErrorCode(code), `${code} is in the catalogue`);
  assert.is(oauthErrorOf(validationCode.oauth), "invalid_request");
  assert.is(isClassified(validationCode.partner), false);
});

RenderError("a validation failure in each family's own shape: 400, and the partner envelope has no code", () => {
  const params = { fields: "name, price" };
  const oauth = renderError({ code: validationCode.oauth, params }, { ...base, family: "oauth" });
  assert.is(oauth.status, 400);
  assert.equal(oauth.body, {
    error: "invalid_request",
    error_description: "The request is missing a required field or has a malformed one: name, price.",
    code: "oauth.invalid_request",
  });
  const developer = renderError({ code: validationCode.developer, params }, { ...base, family: "developer" });
  assert.is(developer.status, 400);
  assert.is((developer.body as { error: { code: string } }).error.code, "developer.invalid_request");
  const partner = renderError({ code: validationCode.partner, params }, { ...base, family: "partner" });
  assert.is(partner.status, 400);
  assert.not.ok("code" in partner.body);
  assert.is((partner.body as { message: string }).message, "Invalid or unknown fields: name, price.");
  assert.equal((partner.body as { params: object }).params, { fields: "name, price" });
});

RenderError.run();
