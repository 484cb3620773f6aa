// ConsoleService, accounts and sessions: sign-up with a mailed verification link, password reset, sign-in (behind
// the lockout), refresh-token rotation with reuse detection, sign-out and the signed-in account.
import type { ServiceImpl } from "@connectrpc/connect";
import type postgres from "postgres";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { linkTokenPattern, sha256, type ConsoleContext } from "./console-context.js";
import { signConsoleToken, consoleTokenAudience } from "./console-tokens.js";
import { passwordWeakness } from "./password-policy.js";
import { createSignInLockout } from "./sign-in-lockout.js";
import { hashPassword, verifyPassword } from "../credential/passwords.js";
import { serviceErrorWithDetails } from "../errors/index.js";
import { createDeveloperAccountQueries, type LinkPurpose } from "./queries/developer-account-queries.js";
import type { SigningKey } from "../token/access-token.js";

/** Prefix of console refresh tokens: `lp_crt_` plus 32 random bytes. */
const refreshPrefix = "lp_crt_";
/** A well-formed scrypt hash no password produces: an unknown email costs the same as a wrong password. */
const unknownAccountHash = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export function createAccountHandlers(
  console: ConsoleContext,
): Pick<
  ServiceImpl<typeof ConsoleService>,
  "signUp" | "verifyEmail" | "requestPasswordReset" | "resetPassword" | "signIn" | "refreshSession" | "signOut" | "getAccount"
> {
  const { clock, ids, config, logger, deps, sql, domain, fail, now, later, consoleUrl, normaliseEmail, checkEmail, authenticate, describeAccount } = console;
  const lockout = createSignInLockout({
    kv: deps.kv,
    clock,
    logger,
    limit: config.CONSOLE_SIGN_IN_LIMIT,
    windowSeconds: config.CONSOLE_LOCKOUT_SECONDS,
  });

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

  return {
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
  };
}
