// ConsoleService: the developer console (issue 9). Accounts and console sessions, the partner program, organizations
// with roles and invitations, and the self-service of apps, which calls the CredentialService and GrantService
// implementations in process once the caller's role allows it. Console bearer authentication happens here, from the
// Authorization header the front forwards, so the front needs no console step. docs/decisions.md, "Console".
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type postgres from "postgres";
import {
  ConsoleService,
  OrganizationRole,
  type ProgramApplicationSchema,
} from "../../gen/partnerapi/v1/console_service_pb.js";
import { CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { GrantService } from "../../gen/partnerapi/v1/grant_service_pb.js";
import { applicationStates, createConsoleContext, linkTokenPattern, sha256 } from "./console-context.js";
import { signConsoleToken, consoleTokenAudience } from "./console-tokens.js";
import type { MailTransport } from "./mail.js";
import { passwordWeakness } from "./password-policy.js";
import { createSignInLockout } from "./sign-in-lockout.js";
import { hashPassword, verifyPassword } from "../credential/passwords.js";
import { serviceErrorWithDetails } from "../errors/index.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { createAppQueries } from "../credential/queries/app-queries.js";
import { createDeveloperAccountQueries, type LinkPurpose } from "./queries/developer-account-queries.js";
import { createOrganizationMemberQueries, type OrgRole } from "./queries/organization-member-queries.js";
import { createOrganizationQueries } from "../credential/queries/organization-queries.js";
import { createProgramQueries, type ApplicationRow } from "./queries/program-queries.js";
import type { PublicKeyLookup, SigningKey } from "../token/access-token.js";
import { createInProcessClient, forwardedFrom } from "../runtime/service-caller.js";
import type { ServiceContext } from "../runtime/service-context.js";

export interface ConsoleServiceDeps {
  sql: postgres.Sql;
  kv: KeyValueStore;
  /** The key that signs now (the signing-key store's). */
  signingKey: () => Promise<SigningKey>;
  /** Public keys by kid (the key ring's). */
  publicKey: PublicKeyLookup;
  mail: MailTransport;
  credential: ServiceImpl<typeof CredentialService>;
  grant: ServiceImpl<typeof GrantService>;
}

/** Prefix of console refresh tokens: `lp_crt_` plus 32 random bytes. */
const refreshPrefix = "lp_crt_";

const roleNames: Record<OrgRole, OrganizationRole> = {
  OWNER: OrganizationRole.OWNER,
  ADMIN: OrganizationRole.ADMIN,
  DEVELOPER: OrganizationRole.DEVELOPER,
  VIEWER: OrganizationRole.VIEWER,
};
const roleOf = (role: OrganizationRole): OrgRole | undefined =>
  (Object.entries(roleNames) as Array<[OrgRole, OrganizationRole]>).find(([, value]) => value === role)?.[0];

/** A well-formed scrypt hash no password produces: an unknown email costs the same as a wrong password. */
const unknownAccountHash = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export function createConsoleService(context: ServiceContext, deps: ConsoleServiceDeps): ServiceImpl<typeof ConsoleService> {
  const console = createConsoleContext(context, deps);
  const { clock, ids, config, logger, sql, domain, fail, invalid, now, later, consoleUrl, normaliseEmail, checkEmail } = console;
  const { authenticate, requireRole, requireAppRole, requireProgram, describeAccount } = console;
  const lockout = createSignInLockout({
    kv: deps.kv,
    clock,
    logger,
    limit: config.CONSOLE_SIGN_IN_LIMIT,
    windowSeconds: config.CONSOLE_LOCKOUT_SECONDS,
  });
  // The services the console stands in front of, called in process with the console call's headers and values.
  const credentials = createInProcessClient(CredentialService, deps.credential);
  const grants = createInProcessClient(GrantService, deps.grant);

  const checkPassword = (field: string, password: string, email: string) => {
    const rule = passwordWeakness(password, email);
    if (rule) throw serviceErrorWithDetails(domain, "developer.password_too_weak", { rule }, [{ field, rule }]);
  };

  /** Makes a single-use link for the account and mails it; only the token's hash is stored. */
  async function mailLink(account: { id: number; email: string }, purpose: LinkPurpose) {
    const token = ids.randomToken(32);
    const ttl = purpose === "VERIFY_EMAIL" ? config.CONSOLE_VERIFY_LINK_TTL_SECONDS : config.CONSOLE_RESET_LINK_TTL_SECONDS;
    await createDeveloperAccountQueries(sql).insertLink(sha256(token), account.id, purpose, later(ttl), now());
    const page = purpose === "VERIFY_EMAIL" ? "verify-email" : "reset-password";
    await deps.mail.send({
      to: account.email,
      subject: purpose === "VERIFY_EMAIL" ? "Verify your email address" : "Reset your password",
      text: purpose === "VERIFY_EMAIL" ? "Open this link to verify your developer account." : "Open this link to choose a new password.",
      link: `${consoleUrl}/${page}?token=${token}`,
    });
  }

  /** Reads a mailed link by its token: developer.link_invalid (malformed, unknown, used) or link_expired. */
  async function openLink(token: string, purpose: LinkPurpose) {
    if (!linkTokenPattern.test(token)) throw fail("developer.link_invalid");
    const hash = sha256(token);
    const link = await createDeveloperAccountQueries(sql).findLink(hash, purpose);
    if (!link || link.used_at) throw fail("developer.link_invalid");
    if (link.expires_at.getTime() <= clock.now()) throw fail("developer.link_expired");
    return { hash, accountId: link.account_id };
  }

  /**
   * A new session's (or a rotation's) tokens, inside the caller's transaction. The signing key is fetched before
   * the transaction (it may read the database, and embedded PGlite has one connection: only `tx` inside).
   */
  async function issueSession(db: postgres.TransactionSql, key: SigningKey, accountId: number, sessionId: string) {
    const refreshToken = refreshPrefix + ids.randomToken(32);
    await createDeveloperAccountQueries(db).insertRefreshToken(sha256(refreshToken), sessionId, later(config.CONSOLE_REFRESH_TTL_SECONDS), now());
    const iat = Math.floor(clock.now() / 1000);
    const accessToken = signConsoleToken(key, {
      iss: config.BASE_URL,
      aud: consoleTokenAudience,
      sub: String(accountId),
      sid: sessionId,
      jti: ids.uuid(),
      iat,
      exp: iat + config.ACCESS_TOKEN_TTL_SECONDS,
    });
    return {
      accessToken,
      tokenType: "Bearer",
      expiresIn: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshToken,
      refreshTokenExpiresIn: config.CONSOLE_REFRESH_TTL_SECONDS,
    };
  }

  const describeApplication = (row: ApplicationRow): MessageInitShape<typeof ProgramApplicationSchema> => ({
    applicationId: BigInt(row.id),
    accountId: BigInt(row.account_id),
    companyName: row.company_name,
    website: row.website,
    useCase: row.use_case,
    state: applicationStates[row.state],
    createdAt: row.created_at.toISOString(),
    decidedAt: row.decided_at?.toISOString() ?? "",
  });

  const describeAgreement = (row: { version: number; title: string; url: string; published_at: Date }) => ({
    version: row.version,
    title: row.title,
    url: row.url,
    publishedAt: row.published_at.toISOString(),
  });

  return {
    // ------------------------------------------------------------------ accounts and sessions
    async signUp(request) {
      const email = normaliseEmail(request.email);
      checkEmail(email);
      checkPassword("password", request.password, email);
      const passwordHash = await hashPassword(request.password);
      const account = await createDeveloperAccountQueries(sql).insert(email, passwordHash, now());
      if (account) {
        await mailLink(account, "VERIFY_EMAIL");
        logger.info("developer account created", { accountId: account.id });
      } else {
        // Taken: the same answer, and the address's owner learns of the attempt by mail.
        await deps.mail.send({
          to: email,
          subject: "You already have a developer account",
          text: "Someone tried to sign up with this address. If it was you, sign in or reset your password.",
          link: `${consoleUrl}/sign-in`,
        });
      }
      return {};
    },

    async verifyEmail(request) {
      const link = await openLink(request.token, "VERIFY_EMAIL");
      await sql.begin(async (tx) => {
        const accounts = createDeveloperAccountQueries(tx);
        if (!(await accounts.useLink(link.hash, now()))) throw fail("developer.link_invalid");
        await accounts.markVerified(link.accountId, now());
      });
      return {};
    },

    async requestPasswordReset(request) {
      const email = normaliseEmail(request.email);
      const account = await createDeveloperAccountQueries(sql).findByEmail(email);
      if (account && !account.suspended_at) await mailLink(account, "RESET_PASSWORD");
      return {};
    },

    async resetPassword(request) {
      const link = await openLink(request.token, "RESET_PASSWORD");
      const account = await createDeveloperAccountQueries(sql).find(link.accountId);
      if (!account) throw fail("developer.link_invalid");
      checkPassword("newPassword", request.newPassword, account.email);
      const passwordHash = await hashPassword(request.newPassword);
      await sql.begin(async (tx) => {
        const accounts = createDeveloperAccountQueries(tx);
        if (!(await accounts.useLink(link.hash, now()))) throw fail("developer.link_invalid");
        await accounts.setPassword(account.id, passwordHash);
        // Opening the reset link proves the mailbox: the address counts as verified. Every session ends.
        await accounts.markVerified(account.id, now());
        await accounts.revokeSessionsOf(account.id, now());
      });
      logger.info("developer password reset", { accountId: account.id });
      return {};
    },

    async signIn(request) {
      const email = normaliseEmail(request.email);
      if (await lockout.locked(email)) throw fail("developer.too_many_attempts");
      const account = await createDeveloperAccountQueries(sql).findByEmail(email);
      const ok = await verifyPassword(request.password, account?.password_hash ?? unknownAccountHash);
      if (!account || !ok) {
        await lockout.failed(email);
        throw fail("developer.sign_in_failed");
      }
      if (!account.verified_at) throw fail("developer.email_not_verified");
      if (account.suspended_at) throw fail("developer.account_suspended");
      const sessionId = ids.randomToken(16);
      const key = await deps.signingKey();
      const session = await sql.begin(async (tx) => {
        await createDeveloperAccountQueries(tx).insertSession(sessionId, account.id, now());
        return issueSession(tx, key, account.id, sessionId);
      });
      logger.info("console sign-in", { accountId: account.id, sessionId });
      return { session };
    },

    async refreshSession(request) {
      const hash = sha256(request.refreshToken);
      const key = await deps.signingKey();
      const outcome = await sql.begin(async (tx) => {
        const accounts = createDeveloperAccountQueries(tx);
        const row = await accounts.findRefreshToken(hash);
        if (!row || row.revoked_at) return { code: "developer.refresh_invalid" as const };
        // Rotated out before (or by a parallel call that won the conditional write): the family ends.
        const reused = row.used_at !== null || (row.expires_at.getTime() > clock.now() && !(await accounts.useRefreshToken(hash, now())));
        if (reused) {
          await accounts.revokeSession(row.session_id, now());
          return { code: "developer.refresh_reuse_detected" as const, sessionId: row.session_id };
        }
        if (row.expires_at.getTime() <= clock.now()) return { code: "developer.refresh_invalid" as const };
        const account = await accounts.find(row.account_id);
        if (!account || account.suspended_at) return { code: "developer.account_suspended" as const };
        return { session: await issueSession(tx, key, row.account_id, row.session_id) };
      });
      if (outcome.code !== undefined) {
        if (outcome.code === "developer.refresh_reuse_detected") logger.warn("console refresh token reused; session revoked", { sessionId: outcome.sessionId });
        throw fail(outcome.code);
      }
      return { session: outcome.session! };
    },

    async signOut(_request, ctx) {
      const caller = await authenticate(ctx);
      await createDeveloperAccountQueries(sql).revokeSession(caller.sessionId, now());
      return {};
    },

    async getAccount(_request, ctx) {
      const { account } = await authenticate(ctx);
      return { account: await describeAccount(account) };
    },

    // ------------------------------------------------------------------ the partner program
    async submitProgramApplication(request, ctx) {
      const { account } = await authenticate(ctx);
      const program = createProgramQueries(sql);
      // One application at a time: a pending one (the partial unique index) or an approved one stands.
      if (await program.hasApproved(account.id)) throw fail("developer.nda_already_submitted");
      const row = await program.insertApplication(
        { accountId: account.id, companyName: request.companyName.trim(), website: request.website.trim(), useCase: request.useCase.trim() },
        now(),
      );
      if (!row) throw fail("developer.nda_already_submitted");
      logger.info("program application submitted", { accountId: account.id, applicationId: row.id });
      return { application: describeApplication(row) };
    },

    async getActiveAgreement(_request, ctx) {
      await authenticate(ctx);
      const active = await createProgramQueries(sql).activeAgreement();
      if (!active) throw fail("developer.agreement_not_found");
      return { agreement: describeAgreement(active) };
    },

    async signAgreement(request, ctx) {
      const { account } = await authenticate(ctx);
      const signed = await createProgramQueries(sql).signIfActive(account.id, request.version, now());
      if (!signed) throw fail("developer.agreement_version_stale");
      return { version: request.version, signedAt: now().toISOString() };
    },

    async decideProgramApplication(request) {
      const program = createProgramQueries(sql);
      const id = Number(request.applicationId);
      const current = await program.findApplication(id);
      if (!current) throw fail("developer.program_application_not_found");
      const row = await program.decide(id, request.approve ? "APPROVED" : "DECLINED", now());
      if (!row) throw fail("developer.program_application_not_pending", { state: current.state });
      logger.info("program application decided", { applicationId: id, state: row.state });
      return { application: describeApplication(row) };
    },

    async listProgramApplications() {
      return { applications: (await createProgramQueries(sql).listApplications()).map(describeApplication) };
    },

    async publishAgreementVersion(request) {
      const title = request.title.trim();
      const url = request.url.trim();
      if (!title) throw invalid("title", "is required");
      if (!/^https?:\/\/\S+$/.test(url)) throw invalid("url", "must be an http(s) URL");
      const row = await sql.begin((tx) => createProgramQueries(tx).publish(title, url, now()));
      logger.info("developer agreement published", { version: row.version });
      return { agreement: describeAgreement(row) };
    },

    async setAccountSuspended(request) {
      const id = Number(request.accountId);
      const row = await sql.begin(async (tx) => {
        const accounts = createDeveloperAccountQueries(tx);
        const updated = await accounts.setSuspended(id, request.suspended ? now() : null);
        if (updated && request.suspended) await accounts.revokeSessionsOf(id, now());
        return updated;
      });
      if (!row) throw fail("developer.account_not_found");
      return { account: await describeAccount(row) };
    },

    // ------------------------------------------------------------------ organizations
    async createDeveloperOrganization(request, ctx) {
      const { account } = await authenticate(ctx);
      const name = request.name.trim();
      if (!name) throw invalid("name", "is required");
      const organization = await sql.begin(async (tx) => {
        const row = await createOrganizationQueries(tx).insert(name, now());
        await createOrganizationMemberQueries(tx).insertMember(row.id, account.id, "OWNER", now());
        return row;
      });
      logger.info("organization created", { organizationId: organization.id, accountId: account.id });
      return { organization: { organizationId: BigInt(organization.id), name: organization.name, role: OrganizationRole.OWNER } };
    },

    async listDeveloperOrganizations(_request, ctx) {
      const { account } = await authenticate(ctx);
      const rows = await createOrganizationMemberQueries(sql).organizationsOf(account.id);
      return { organizations: rows.map((row) => ({ organizationId: BigInt(row.id), name: row.name, role: roleNames[row.role] })) };
    },

    async listOrganizationMembers(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "read");
      const rows = await createOrganizationMemberQueries(sql).listMembers(organizationId);
      return {
        members: rows.map((row) => ({ accountId: BigInt(row.account_id), email: row.email, role: roleNames[row.role], joinedAt: row.created_at.toISOString() })),
      };
    },

    async updateOrganizationMember(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const role = roleOf(request.role);
      if (!role) throw invalid("role", "is required");
      const members = createOrganizationMemberQueries(sql);
      const target = await members.findMember(organizationId, Number(request.accountId));
      if (!target) throw fail("developer.member_not_found");
      if (target.role === "OWNER") throw fail("developer.owner_immutable");
      if (role === "OWNER") throw invalid("role", "OWNER cannot be given; an organization has one owner");
      await members.setRole(organizationId, target.account_id, role);
      return { member: { accountId: BigInt(target.account_id), email: target.email, role: roleNames[role], joinedAt: target.created_at.toISOString() } };
    },

    async removeOrganizationMember(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const members = createOrganizationMemberQueries(sql);
      const target = await members.findMember(organizationId, Number(request.accountId));
      if (!target) throw fail("developer.member_not_found");
      if (target.role === "OWNER") throw fail("developer.owner_immutable");
      await members.removeMember(organizationId, target.account_id);
      return {};
    },

    async createOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      const organizationId = Number(request.organizationId);
      await requireRole(account.id, organizationId, "manage_members");
      const email = normaliseEmail(request.email);
      checkEmail(email);
      const role = roleOf(request.role);
      if (!role || role === "OWNER") throw invalid("role", "must be ADMIN, DEVELOPER or VIEWER");
      const token = ids.randomToken(32);
      const invitation = await createOrganizationMemberQueries(sql).insertInvitation(
        { tokenHash: sha256(token), organizationId, email, role, invitedBy: account.id, expiresAt: later(config.CONSOLE_INVITE_TTL_SECONDS) },
        now(),
      );
      await deps.mail.send({
        to: email,
        subject: "You are invited to a developer organization",
        text: `${account.email} invited you to join their organization as ${role}.`,
        link: `${consoleUrl}/invitations/accept?token=${token}`,
      });
      return {
        invitation: {
          invitationId: BigInt(invitation.id),
          organizationId: BigInt(organizationId),
          email,
          role: roleNames[role],
          expiresAt: invitation.expires_at.toISOString(),
        },
      };
    },

    async acceptOrganizationInvitation(request, ctx) {
      const { account } = await authenticate(ctx);
      if (!linkTokenPattern.test(request.token)) throw fail("developer.invite_invalid");
      const members = createOrganizationMemberQueries(sql);
      const invitation = await members.findInvitation(sha256(request.token));
      if (!invitation || invitation.accepted_at) throw fail("developer.invite_invalid");
      if (invitation.expires_at.getTime() <= clock.now()) throw fail("developer.invite_expired");
      if (invitation.email !== account.email) throw fail("developer.invite_email_mismatch");
      if (await members.findMember(invitation.organization_id, account.id)) throw fail("developer.already_org_member");
      // One conditional write marks the invitation used and adds the member: of parallel redemptions, one wins.
      const redeemed = await members.redeem(invitation.id, account.id, now()).catch((error: { constraint_name?: string }) => {
        if (error.constraint_name === "organization_members__organization_id_account_id__pkey") throw fail("developer.already_org_member");
        throw error;
      });
      if (!redeemed) throw fail("developer.invite_invalid");
      const organization = await createOrganizationQueries(sql).find(invitation.organization_id);
      return { organization: { organizationId: BigInt(invitation.organization_id), name: organization?.name ?? "", role: roleNames[invitation.role] } };
    },

    // ------------------------------------------------------------------ apps, self-service
    async createDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_apps");
      await requireProgram(account.id);
      const created = await credentials.createApp({ organizationId: BigInt(request.organizationId), name: request.name, product: request.product }, forwardedFrom(ctx));
      return { app: created.app, sandbox: created.sandbox };
    },

    async getDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      return { app: (await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx))).app };
    },

    async updateDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { app: (await credentials.updateApp({ appId: request.appId, name: request.name, product: request.product }, forwardedFrom(ctx))).app };
    },

    async submitDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { app: (await credentials.submitApp({ appId: request.appId }, forwardedFrom(ctx))).app };
    },

    async archiveDeveloperApp(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "archive_apps");
      return { app: (await credentials.archiveApp({ appId: request.appId }, forwardedFrom(ctx))).app };
    },

    async rotateAppClientSecret(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.credentials.some((client) => client.clientId === request.clientId)) throw fail("developer.credential_not_found");
      const rotated = await credentials.rotateClientSecret({ clientId: request.clientId }, forwardedFrom(ctx));
      return { clientId: rotated.clientId, clientSecret: rotated.clientSecret, previousSecretExpiresAtMs: rotated.previousSecretExpiresAtMs };
    },

    async revealProductionCredentials(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_apps");
      // The app in the path must be the organization's: any other app is unknown here.
      const app = await createAppQueries(sql).find(request.appId);
      if (!app || app.organization_id !== Number(request.organizationId)) throw fail("developer.app_not_found");
      return { production: (await credentials.revealProductionSecret({ appId: request.appId }, forwardedFrom(ctx))).production };
    },

    async setAppRedirectUris(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { redirectUris: (await credentials.setRedirectUris({ appId: request.appId, redirectUris: request.redirectUris }, forwardedFrom(ctx))).redirectUris };
    },

    async setAppClientIpAllowlist(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.credentials.some((client) => client.clientId === request.clientId)) throw fail("developer.credential_not_found");
      return { allowedIps: (await credentials.setIpAllowlist({ clientId: request.clientId, allowedIps: request.allowedIps }, forwardedFrom(ctx))).allowedIps };
    },

    async createAppApiKey(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      return { apiKey: (await credentials.createApiKey({ appId: request.appId, name: request.name, environment: request.environment }, forwardedFrom(ctx))).apiKey };
    },

    async revokeAppApiKey(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.apiKeys.some((key) => key.apiKeyId === request.apiKeyId)) throw fail("developer.api_key_not_found");
      return { revoked: (await credentials.revokeApiKey({ apiKeyId: request.apiKeyId }, forwardedFrom(ctx))).revoked };
    },

    async setAppApiKeyIpAllowlist(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const { app } = await credentials.getApp({ appId: request.appId }, forwardedFrom(ctx));
      if (!app?.apiKeys.some((key) => key.apiKeyId === request.apiKeyId)) throw fail("developer.api_key_not_found");
      return { allowedIps: (await credentials.setIpAllowlist({ apiKeyId: request.apiKeyId, allowedIps: request.allowedIps }, forwardedFrom(ctx))).allowedIps };
    },

    async provisionOrganizationSandboxMerchant(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_sandbox");
      const made = await credentials.provisionSandboxMerchant({ organizationId: BigInt(request.organizationId), country: request.country, name: request.name }, forwardedFrom(ctx));
      return { merchant: made.merchant, owner: made.owner };
    },

    async listOrganizationSandboxMerchants(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "read");
      return { merchants: (await credentials.listSandboxMerchants({ organizationId: BigInt(request.organizationId) }, forwardedFrom(ctx))).merchants };
    },

    async setOrganizationSandboxMerchantActive(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireRole(account.id, Number(request.organizationId), "manage_sandbox");
      const { merchants } = await credentials.listSandboxMerchants({ organizationId: BigInt(request.organizationId) }, forwardedFrom(ctx));
      if (!merchants.some((merchant) => merchant.companyId === BigInt(request.companyId))) throw fail("developer.merchant_not_found");
      const updated = await credentials.updateMerchantStatus({ companyId: BigInt(request.companyId), active: request.active }, forwardedFrom(ctx));
      return { merchant: updated.merchant };
    },

    async createAppAccessRequest(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "manage_apps");
      const made = await grants.createAccessRequest({ appId: request.appId, companyId: BigInt(request.companyId), storeIds: request.storeIds.map(BigInt) }, forwardedFrom(ctx));
      return { accessRequest: made.accessRequest };
    },

    async listAppAccessRequests(request, ctx) {
      const { account } = await authenticate(ctx);
      await requireAppRole(account.id, request.appId, "read");
      const listed = await grants.listAccessRequests({ appId: request.appId }, forwardedFrom(ctx));
      return { accessRequests: listed.accessRequests };
    },
  };
}