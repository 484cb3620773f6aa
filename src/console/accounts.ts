// ConsoleService, accounts: sign-up with a mailed verification link, the link's verification, password reset by a
// mailed link, and the signed-in account. Sign-up and reset are counted per email and per source address before
// any work (src/console/limits.ts); their mail is queued (durably), then made and sent by the outbox after the
// answer.
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService } from "../../gen/partnerapi/v1/console_service_pb.js";
import { hashPassword } from "../credential/index.js";
import { serviceErrorWithDetails } from "../errors/index.js";
import { linkTokenPattern, sha256, type ConsoleContext, type ConsoleServiceDeps } from "./console-context.js";
import { addressKeyOf } from "./limits.js";
import { passwordWeakness } from "./password-policy.js";
import { createDeveloperAccountQueries, type LinkPurpose } from "./queries/developer-account-queries.js";

export function createAccountHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<
    ConsoleContext,
    | "authenticate"
    | "checkEmail"
    | "clock"
    | "config"
    | "consoleUrl"
    | "describeAccount"
    | "domain"
    | "fail"
    | "ids"
    | "later"
    | "limits"
    | "logger"
    | "normaliseEmail"
    | "now"
    | "sql"
    | "statedLocale"
  > & { deps: Pick<ConsoleServiceDeps, "mail"> },
): Pick<
  ServiceImpl<typeof ConsoleService>,
  "signUp" | "verifyEmail" | "requestPasswordReset" | "resetPassword" | "getAccount"
> {
  const {
    clock,
    config,
    logger,
    deps,
    sql,
    domain,
    fail,
    now,
    normaliseEmail,
    checkEmail,
    authenticate,
    describeAccount,
    limits,
    statedLocale,
  } = shared;
  const checkPassword = (field: string, password: string, email: string) => {
    const rule = passwordWeakness(password, email);
    if (rule) throw serviceErrorWithDetails(domain, "developer.password_too_weak", { rule }, [{ field, rule }]);
  };

  /** Reads a mailed link by its token: developer.link_invalid (malformed, unknown, used) or link_expired. */
  async function openLink(token: string, purpose: LinkPurpose) {
    if (!linkTokenPattern.test(token)) throw fail("developer.link_invalid");
    const hash = sha256(token);
    const link = await createDeveloperAccountQueries(sql).findLink(hash, purpose);
    if (!link || link.used_at) throw fail("developer.link_invalid");
    if (link.expires_at.getTime() <= clock.now()) throw fail("developer.link_expired");
    return { hash, accountId: link.account_id };
  }

  return {
    async signUp(request, ctx) {
      const email = normaliseEmail(request.email);
      checkEmail(email);
      checkPassword("password", request.password, email);
      // Counted before the scrypt: a flood of sign-ups costs a counter each, not a hash and a mail.
      await limits.signUp(email, addressKeyOf(ctx));
      const passwordHash = await hashPassword(request.password, config.passwordHashCost);
      // The language signed up in is the one its mail is written in until a sign-in in another.
      const stated = statedLocale(ctx);
      // The account and its verification mail's job in one transaction: neither exists without the other.
      const account = await sql.begin(async (tx) => {
        const inserted = await createDeveloperAccountQueries(tx).insert(email, passwordHash, now(), stated);
        if (inserted)
          await deps.mail.enqueue(tx, {
            kind: "email verification",
            to: email,
            accountId: inserted.id,
            locale: stated ?? "en",
          });
        return inserted;
      });
      if (account) {
        logger.info("developer account created", { accountId: account.id });
      } else {
        // Taken: the same answer, and the address's owner learns of the attempt by mail.
        await deps.mail.enqueue(sql, { kind: "sign-up notice", to: email, locale: stated });
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

    async requestPasswordReset(request, ctx) {
      const email = normaliseEmail(request.email);
      // Every email counts, known or not, so neither the answer nor a refusal tells whether it has an account.
      await limits.passwordReset(email, addressKeyOf(ctx));
      const stated = statedLocale(ctx);
      // The lookup, the link and the mail all happen when the job runs: a known and an unknown email do the same
      // work before the answer (one counter round trip and one job stored), so its timing says nothing either.
      await deps.mail.enqueue(sql, { kind: "password reset", to: email, locale: stated });
      return {};
    },

    async resetPassword(request) {
      const link = await openLink(request.token, "RESET_PASSWORD");
      const account = await createDeveloperAccountQueries(sql).find(link.accountId);
      if (!account) throw fail("developer.link_invalid");
      checkPassword("newPassword", request.newPassword, account.email);
      const passwordHash = await hashPassword(request.newPassword, config.passwordHashCost);
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

    async getAccount(_request, ctx) {
      const { account } = await authenticate(ctx);
      return { account: await describeAccount(account) };
    },
  };
}
