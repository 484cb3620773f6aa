// What the consent site's pages share (./consent-server.ts builds it once): the options, the request as its steps
// see it, and the kit every page uses (error and message pages, the sign-in page, the access-request store).
import type http from "node:http";
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import type { createAccessRequests, Authorization, Connections } from "../grant/index.js";
import type { ErrorCode } from "../errors/index.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import type { KeyValueStore } from "../storage/key-value.js";
import type { PageReply } from "../web/site-server.js";
import type { Locale, MessageKey, Translate } from "../web/i18n.js";
import type { VerifyMerchantUser } from "./merchant-users.js";
import type { AppLinks } from "./app-identity.js";
import type { PageContext } from "./pages.js";
import type { Session } from "./sessions.js";

export interface ConsentServerOptions {
  logger: Logger;
  config: Config;
  clock: Clock;
  ids: IdSource;
  sql: postgres.Sql;
  kv: KeyValueStore;
  authorization: Authorization;
  connections: Connections;
  verifyMerchantUser: VerifyMerchantUser;
  /** The app's public pages (website, privacy policy, terms) for the consent screen; absent: none shown. */
  appLinks?: (appId: string) => Promise<AppLinks>;
  /** When each of the company's apps last called (the request log); absent: not shown. */
  lastCalls?: (companyId: number) => Promise<ReadonlyMap<string, Date>>;
  /** The names of a company's stores (its region's data); absent or failing: stores are shown by number. */
  storeNames?: (companyId: number) => Promise<ReadonlyMap<number, string>>;
  /** GET /readyz asks it (the databases this process uses); absent: no /readyz. */
  readiness?: () => Promise<{ ready: boolean; down: string[] }>;
}

/** What a request's routing learned that its failure page and its answer still need. */
export interface RequestState {
  /** The page's language and place, once chosen: a failure page after that speaks the same language. */
  context?: PageContext;
  /** The language switch's cookie, when this request chose a language with ?lang=. */
  languageCookie?: string;
}

export type Reply = PageReply;

/** One request as the consent site's steps see it. */
export interface Visit {
  request: http.IncomingMessage;
  url: URL;
  method: string;
  path: string;
  cookies: Map<string, string>;
  sessionId: string | undefined;
  /** Read once, at the start: every route knows whether the merchant is signed in. */
  session: Session | undefined;
  /** The page's language and place; a hint (the authorize request's ui_locales, from a POST's form) may change it. */
  readonly locale: Locale;
  readonly context: PageContext;
  hint(uiLocales: string | null | undefined): void;
}

/** What a route does with a request. */
export type Handler = (visit: Visit) => Promise<Reply>;
/** What a POST route does once its form is read. */
export type FormHandler = (visit: Visit, form: URLSearchParams) => Promise<Reply>;

/** An access request a decision or withdrawal is about, once the owner and the request are checked. */
export interface AccessRequestAction {
  id: number;
  appName: string;
  form: URLSearchParams;
  session: Session;
  back: PageContext;
  t: Translate;
}

/** What every page of the site uses, built once per server. */
export interface ConsentKit {
  options: ConsentServerOptions;
  /** AUTH_URL's origin: a POST must come from it. */
  ownOrigin: string;
  /** Whether the site is served over https (its cookies are Secure, its pages send HSTS). */
  secure: boolean;
  accessRequests: ReturnType<typeof createAccessRequests>;
  /** A catalogue error's page, with the code's own headers. */
  error(code: ErrorCode, context: PageContext, params?: Record<string, string>): Reply;
  /** A page that says one thing (a refusal, a signed-out notice). */
  message(status: number, context: PageContext, titleKey: MessageKey, textKey: MessageKey): Reply;
  /** The sign-in page returning to `returnTo`. */
  signIn(
    locale: Locale,
    cookies: Map<string, string>,
    returnTo: string,
    status?: number,
    failed?: boolean,
    appName?: string,
    email?: string,
  ): Reply;
}
