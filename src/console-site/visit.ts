// One request to the console site as its pages see it: the language, the session (if any), the CSRF token for
// its forms, the form body of a POST, and the ConsoleService called on the developer's behalf.
import type { JsonValue } from "@bufbuild/protobuf";
import { messageFor, type Locale } from "../errors/index.js";
import type { SafeHtml } from "../web/html.js";
import type { Translate } from "../web/i18n.js";
import type { ApiError, CallResult, ConsoleMethod } from "./console-api.js";

export interface Reply {
  status: number;
  html?: string;
  location?: string;
  headers?: Record<string, string>;
  cookies?: string[];
}

/** One entry of a refused form's error summary: its text, and the control it leads to (none: the form as a whole). */
export interface Problem {
  text: string;
  href?: string;
}

export interface PageOptions {
  status?: number;
  narrow?: boolean;
  copyScript?: boolean;
  query?: URLSearchParams;
  /** The <title> when it says more than the <h1> (a section of a page). */
  documentTitle?: string;
  /** Where the language switch leads when not to this path (a form's answer: the page that holds the form). */
  switchPath?: string;
  /** A refused form's problems: the error summary at the top of <main> (./error-summary.ts); none, no summary. */
  problems?: Problem[];
}

export interface Visit {
  method: string;
  path: string;
  query: URLSearchParams;
  locale: Locale;
  t: Translate;
  signedIn: boolean;
  /** The developer's address as the site saw it (after TRUST_PROXY). */
  clientAddress: string;
  /** The console's limits as configured, for the pages that explain them. */
  rules: { signInAttempts: number; lockoutMinutes: number };
  /**
   * Mail goes to the log (MAIL_TRANSPORT=log, the default, refused in production): the pages that say "we sent you
   * a link" also say where a developer running locally finds it.
   */
  mailInLog: boolean;
  /** The clock's time in milliseconds (whether an invitation has expired). */
  now: () => number;
  /**
   * Development mode (config.internal.localStaff: no staff exist, `npm run staff` acts as them): the program page
   * says which command approves an application (docs/decisions.md, "Console site").
   */
  development: boolean;
  /** The invitation a visitor opened before signing up (a cookie), for sign-in to lead back to it. */
  pendingInvitation: string | undefined;
  /** The token every form of this page carries (the session's, or the pre-sign-in double-submit one). */
  csrf: string;
  form: URLSearchParams;
  api: <K extends ConsoleMethod>(method: K, fields?: Record<string, JsonValue>) => Promise<CallResult<K>>;
  /** A whole page in the site's shell. */
  page: (title: string, body: SafeHtml | string, options?: PageOptions) => Reply;
}

/** The message of an API error in the page's language (the catalogue of src/errors/ is translated). */
export function errorText(error: ApiError, locale: Locale, t: Translate): string {
  // The strength rule comes as English text: the page explains the rules in its own language instead.
  if (error.code === "developer.password_too_weak") return t("console.passwordTooWeak");
  return messageFor(error.code, error.params, locale);
}
