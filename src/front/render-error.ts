// Renders one catalogue error in the shape of a route family; the single place the front turns errors into answers.
import {
  negotiateLocale,
  renderDeveloperError,
  renderOAuthError,
  renderPartnerError,
  type ErrorToRender,
  type RenderedError,
} from "../errors/index.js";
import type { Family } from "./route-table.js";

export interface ErrorContext {
  family: Family;
  acceptLanguage: string | undefined;
  path: string;
  timestamp: string;
  correlationId: string;
}

export function renderError(error: ErrorToRender, context: ErrorContext): RenderedError<object> {
  const locale = negotiateLocale(context.acceptLanguage);
  switch (context.family) {
    case "oauth":
      return renderOAuthError(error, locale);
    case "developer":
      return renderDeveloperError(error, locale);
    case "partner":
      return renderPartnerError(error, locale, context);
  }
}

/** The code a validation failure is reported with, per family (docs/decisions.md, "Validation failures"). */
export const validationCode = {
  oauth: "oauth.invalid_request",
  developer: "developer.invalid_request",
  partner: "request.invalid_fields",
} as const satisfies Record<Family, string>;
