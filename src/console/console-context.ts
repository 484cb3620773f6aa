// What the console's sections share, built once per ConsoleService and handed to each section's handlers: the
// error shorthands, the clock's dates, email checks, console bearer authentication, the organization-role guards,
// the flow limits, and the plain interfaces of the credential, grant and webhook owners the console stands in front of.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import type postgres from "postgres";
import {
  ConsoleService,
  ProgramApplicationState,
  type DeveloperAccountSchema,
} from "../../gen/partnerapi/v1/console_service_pb.js";
import { verifyConsoleToken } from "./console-tokens.js";
import { createConsoleLimits } from "./limits.js";
import type { MailOutbox } from "./mail-outbox.js";
import { roleMay, type OrgAction } from "./org-roles.js";
import {
  negotiateLocale,
  serviceError,
  serviceErrorWithDetails,
  type ErrorCode,
  type Locale,
  type ParamsOf,
} from "../errors/index.js";
import { findApp, type Credentials } from "../credential/index.js";
import type { AccessRequests } from "../grant/index.js";
import type { WebhookEndpoints } from "../webhook/index.js";
import { createDeveloperAccountQueries, type DeveloperAccountRow } from "./queries/developer-account-queries.js";
import { createOrganizationMemberQueries } from "./queries/organization-member-queries.js";
import { createProgramQueries, type ApplicationRow } from "./queries/program-queries.js";
import type { KeyValueStore } from "../storage/key-value.js";
import type { PublicKeyLookup, SigningKey } from "../token/index.js";
import type { ServiceContext } from "../runtime/service-context.js";

/** Mailed link tokens are 32 random bytes, base64url: exactly 43 characters. */
export const linkTokenPattern = /^[A-Za-z0-9_-]{43}$/;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const applicationStates: Record<ApplicationRow["state"], ProgramApplicationState> = {
  PENDING: ProgramApplicationState.PENDING,
  APPROVED: ProgramApplicationState.APPROVED,
  DECLINED: ProgramApplicationState.DECLINED,
};

export { sha256 } from "./digest.js";

export interface ConsoleServiceDeps {
  sql: postgres.Sql;
  kv: KeyValueStore;
  /** The key that signs now (the signing-key store's). */
  signingKey: () => Promise<SigningKey>;
  /** Public keys by kid (the key ring's). */
  publicKey: PublicKeyLookup;
  /** Where mail goes: queued durably, composed and sent off the request path (mail-outbox.ts). */
  mail: MailOutbox;
  /** The credential owner's plain interface (apps, client credentials, API keys, sandbox merchants). */
  credentials: Credentials;
  /** The grant owner's access requests. */
  accessRequests: AccessRequests;
  /** The webhook owner's endpoints, the ones the /v1/webhook-endpoints routes manage (src/console/webhooks.ts). */
  webhooks?: WebhookEndpoints;
  /** The partner request log's reader side: `beforeRead` flushes this process's recorder (src/request-log/). */
  requestLog?: { beforeRead?: () => Promise<void> };
}

export interface Caller {
  account: DeveloperAccountRow;
  sessionId: string;
}

export type ConsoleContext = ReturnType<typeof createConsoleContext>;

export function createConsoleContext(context: ServiceContext, deps: ConsoleServiceDeps) {
  const { clock, config, logger } = context;
  const { sql } = deps;
  const domain = ConsoleService.typeName;
  const fail = <C extends ErrorCode>(
    code: C,
    ...params: ParamsOf<C> extends Record<string, never> ? [] : [ParamsOf<C>]
  ) => serviceError(domain, code, params[0] as ParamsOf<C>);
  const invalid = (field: string, rule: string) =>
    serviceErrorWithDetails(domain, "developer.invalid_request", { fields: field }, [{ field, rule }]);
  const now = () => new Date(clock.now());
  const later = (seconds: number) => new Date(clock.now() + seconds * 1000);
  const consoleUrl = config.urls.console;

  /** The caller's language: the console site sends its page's, an API client whatever it asks for. */
  const requestLocale = (ctx: HandlerContext): Locale =>
    negotiateLocale(ctx.requestHeader.get("accept-language") ?? undefined);
  /**
   * The language the caller asked for, when it named one: an API client may send no Accept-Language, or `*` (what
   * fetch sends by default), which names none.
   */
  const statedLocale = (ctx: HandlerContext): Locale | undefined => {
    const header = ctx.requestHeader.get("accept-language") ?? "";
    const named = header.split(",").some((range) => !["", "*"].includes(range.split(";")[0]!.trim()));
    return named ? requestLocale(ctx) : undefined;
  };

  const normaliseEmail = (email: string) => email.trim().toLowerCase();
  const checkEmail = (email: string) => {
    if (!emailPattern.test(email)) throw invalid("email", "must be an email address");
  };

  /**
   * Console authentication, the first step of every signed-in RPC: a console access token (partner tokens have
   * another audience and fail here), a live session, an account that is not suspended.
   */
  async function authenticate(ctx: HandlerContext): Promise<Caller> {
    const header = ctx.requestHeader.get("authorization") ?? "";
    const match = /^Bearer ([A-Za-z0-9_.-]+)$/i.exec(header);
    const claims = match
      ? verifyConsoleToken(match[1]!, { issuer: config.urls.base, keys: deps.publicKey, clock })
      : undefined;
    if (!claims) throw fail("developer.unauthenticated");
    const accounts = createDeveloperAccountQueries(sql);
    const [account, revoked] = await Promise.all([
      accounts.find(Number(claims.sub)),
      accounts.sessionRevoked(claims.sid),
    ]);
    if (!account || revoked) throw fail("developer.unauthenticated");
    if (account.suspended_at) throw fail("developer.account_suspended");
    return { account, sessionId: claims.sid };
  }

  /** The one place organization roles are enforced (src/console/org-roles.ts holds the table). */
  async function requireRole(accountId: number, organizationId: number, action: OrgAction) {
    const member = await createOrganizationMemberQueries(sql).findMember(organizationId, accountId);
    // An organization that does not exist and one the caller is not in answer alike.
    if (!member) throw fail("developer.not_org_member");
    if (!roleMay(member.role, action)) throw fail("developer.insufficient_org_role");
    return member;
  }

  /** The app's organization, checked for the caller's role; developer.app_not_found for an unknown app. */
  async function requireAppRole(accountId: number, appId: string, action: OrgAction) {
    const app = await findApp(sql, appId);
    if (!app) throw fail("developer.app_not_found");
    await requireRole(accountId, app.organization_id, action);
    return app;
  }

  /** Creating apps needs an approved program application and the active agreement signed. */
  async function requireProgram(accountId: number) {
    const program = createProgramQueries(sql);
    const application = await program.latestApplication(accountId);
    if (!application) throw fail("developer.nda_required");
    if (!(await program.hasApproved(accountId))) throw fail("developer.nda_not_approved");
    const active = await program.activeAgreement();
    if (!active || (await program.latestSignedVersion(accountId)) !== active.version)
      throw fail("developer.agreement_required");
  }

  async function describeAccount(
    account: DeveloperAccountRow,
  ): Promise<MessageInitShape<typeof DeveloperAccountSchema>> {
    const program = createProgramQueries(sql);
    const [application, signed, active] = await Promise.all([
      program.latestApplication(account.id),
      program.latestSignedVersion(account.id),
      program.activeAgreement(),
    ]);
    return {
      accountId: BigInt(account.id),
      email: account.email,
      emailVerified: account.verified_at !== null,
      programApplicationState: application ? applicationStates[application.state] : ProgramApplicationState.UNSPECIFIED,
      programApplicationId: application ? BigInt(application.id) : undefined,
      signedAgreementVersion: signed,
      activeAgreementVersion: active?.version ?? 0,
    };
  }

  return {
    ...context,
    deps,
    sql,
    // The owners the console stands in front of, through their plain interfaces.
    credentials: deps.credentials,
    accessRequests: deps.accessRequests,
    // The limits on the flows that mail or provision (src/console/limits.ts).
    limits: createConsoleLimits({ kv: deps.kv, clock, logger, config, domain }),
    domain,
    fail,
    invalid,
    now,
    later,
    consoleUrl,
    requestLocale,
    statedLocale,
    normaliseEmail,
    checkEmail,
    authenticate,
    requireRole,
    requireAppRole,
    requireProgram,
    describeAccount,
  };
}
