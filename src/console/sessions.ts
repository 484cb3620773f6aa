// ConsoleService, sessions: sign-in behind the lockout (counted before the password check; an unknown email costs
// the same scrypt as a wrong password), refresh-token rotation with reuse detection that ends the session family, and sign-out.
import type { ServiceImpl } from "@connectrpc/connect";
import type postgres from "postgres";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { unknownPasswordHash, verifyPassword } from "../credential/index.js";
import type { SigningKey } from "../token/index.js";
import { sha256, type ConsoleContext, type ConsoleServiceDeps } from "./console-context.js";
import { consoleTokenAudience, signConsoleTokenAsync } from "./console-tokens.js";
import { addressKeyOf } from "./limits.js";
import { createDeveloperAccountQueries } from "./queries/developer-account-queries.js";
import { createSignInLockout } from "./sign-in-lockout.js";

/** Prefix of console refresh tokens: `lp_crt_` plus 32 random bytes. */
const refreshPrefix = "lp_crt_";

export function createSessionHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<
    ConsoleContext,
    | "authenticate"
    | "clock"
    | "config"
    | "domain"
    | "fail"
    | "ids"
    | "later"
    | "logger"
    | "normaliseEmail"
    | "now"
    | "sql"
    | "statedLocale"
  > & { deps: Pick<ConsoleServiceDeps, "kv" | "signingKey"> },
): Pick<ServiceImpl<typeof ConsoleService>, "signIn" | "refreshSession" | "signOut"> {
  const {
    clock,
    ids,
    config,
    logger,
    deps,
    sql,
    domain,
    fail,
    now,
    later,
    normaliseEmail,
    authenticate,
    statedLocale,
  } = shared;
  const lockout = createSignInLockout({
    kv: deps.kv,
    clock,
    logger,
    domain,
    limit: config.limits.consoleSignIn,
    addressLimit: config.limits.consoleSignInPerAddress,
    windowSeconds: config.limits.consoleLockoutSeconds,
  });

  /**
   * A new session's (or a rotation's) tokens, inside the caller's transaction. The signing key is fetched before
   * the transaction (it may read the database, and embedded PGlite has one connection: only `tx` inside).
   */
  async function issueSession(db: postgres.TransactionSql, key: SigningKey, accountId: number, sessionId: string) {
    const refreshToken = refreshPrefix + ids.randomToken(32);
    await createDeveloperAccountQueries(db).insertRefreshToken(
      sha256(refreshToken),
      sessionId,
      later(config.lifetimes.consoleRefresh),
      now(),
    );
    const iat = Math.floor(clock.now() / 1000);
    const accessToken = await signConsoleTokenAsync(key, {
      iss: config.urls.base,
      aud: consoleTokenAudience,
      sub: String(accountId),
      sid: sessionId,
      jti: ids.uuid(),
      iat,
      exp: iat + config.lifetimes.accessToken,
    });
    return {
      accessToken,
      tokenType: "Bearer",
      expiresIn: config.lifetimes.accessToken,
      refreshToken,
      refreshTokenExpiresIn: config.lifetimes.consoleRefresh,
    };
  }

  return {
    async signIn(request, ctx) {
      const email = normaliseEmail(request.email);
      // Count first, then check: of N parallel attempts only as many as the lockout admits reach the scrypt.
      const attempt = await lockout.begin(email, addressKeyOf(ctx));
      const account = await createDeveloperAccountQueries(sql).findByEmail(email);
      const ok = await verifyPassword(
        request.password,
        account?.password_hash ?? unknownPasswordHash(config.passwordHashCost),
      );
      if (!account || !ok) {
        await attempt.failed();
        throw fail("developer.sign_in_failed");
      }
      await attempt.succeeded();
      if (!account.verified_at) throw fail("developer.email_not_verified");
      if (account.suspended_at) throw fail("developer.account_suspended");
      // The language signed in with is the one mail to this account is written in (an invitation, say).
      const locale = statedLocale(ctx);
      if (locale) await createDeveloperAccountQueries(sql).setLocale(account.id, locale);
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
        const reused =
          row.used_at !== null ||
          (row.expires_at.getTime() > clock.now() && !(await accounts.useRefreshToken(hash, now())));
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
        if (outcome.code === "developer.refresh_reuse_detected")
          logger.warn("console refresh token reused; session revoked", { sessionId: outcome.sessionId });
        throw fail(outcome.code);
      }
      return { session: outcome.session! };
    },

    async signOut(_request, ctx) {
      const caller = await authenticate(ctx);
      await createDeveloperAccountQueries(sql).revokeSession(caller.sessionId, now());
      return {};
    },
  };
}
