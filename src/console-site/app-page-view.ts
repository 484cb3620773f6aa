// What the app page's sections are given and give back (./app-pages.ts shows one, ./app-section-views.ts renders
// them, ./app-forms.ts answers their forms with one): the state a form's answer carries, the view, the shown section.
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { SafeHtml } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import type { AccessRequestForm, AllowlistState } from "./app-access.js";
import type { AppRights } from "./app-sections.js";
import { errorText, type Problem, type Visit } from "./visit.js";

export interface AppState {
  error?: ApiError;
  form?: "rename" | "submit" | "redirects" | "rotate" | "keys" | "production" | "archive" | "pushed-requests" | "dpop";
  notice?: SafeHtml;
  redirectValue?: string;
  /** A refused allowlist save: which list, the error, what was typed. */
  allowlist?: AllowlistState;
  /** A refused access request: the error and what was typed. */
  accessRequest?: AccessRequestForm;
}

/** What every section's view is given. */
export interface View {
  visit: Visit;
  app: App;
  rights: AppRights;
  /** What the role may change, on an app that still changes (every change to an archived app is refused). */
  editable: boolean;
  state: AppState;
  errorOf: (form: AppState["form"]) => ApiError | undefined;
}

/** A section as shown: its content, and the error summary's entries of the refused form it holds (if any). */
export interface Shown {
  body: SafeHtml;
  problems: Problem[];
}

/** A refusal said only as its form's alert: one summary entry, linked to no control. */
export function refusalText(visit: Visit, error: ApiError | undefined): Problem[] {
  return error ? [{ text: errorText(error, visit.locale, visit.t) }] : [];
}
