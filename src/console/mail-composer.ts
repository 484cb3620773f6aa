// What a queued mail says, made when its job runs (mail-outbox.ts) from the intent the request stored: the account,
// its language and the link are read or written then, so the queue's table holds no link and no words. Composing
// twice (a job run again after its worker died) makes the same mail: the link's token comes from the job's id, and
// a link already stored is kept as it is.
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import type { Clock } from "../runtime/clock.js";
import { sha256 } from "./digest.js";
import type { ComposeMail } from "./mail-outbox.js";
import type { ConsoleMailTexts, Mail, MailIntent } from "./mail.js";
import { createDeveloperAccountQueries, type LinkPurpose } from "./queries/developer-account-queries.js";
import { createOrganizationMemberQueries } from "./queries/organization-member-queries.js";
import { findOrganization } from "../credential/index.js";
import type { Locale } from "../errors/index.js";

export function createMailComposer(deps: {
  sql: postgres.Sql;
  config: Pick<Config, "lifetimes" | "urls">;
  clock: Clock;
  mailTexts: ConsoleMailTexts;
}): ComposeMail {
  const { sql, config, clock, mailTexts } = deps;
  const consoleUrl = config.urls.console;
  const accounts = createDeveloperAccountQueries(sql);

  /**
   * The language of an account mail: the page's the request came from (the console site sends it), else the one
   * the address's account last used, else English (docs/decisions.md, "Console").
   */
  const mailLocale = async (stated: Locale | undefined, email: string): Promise<Locale> =>
    stated ?? (await accounts.localeOf(email)) ?? "en";

  /** Stores the single-use link (its token's hash only; kept if a first run stored it) and makes its mail. */
  async function linkMail(
    account: { id: number; email: string },
    purpose: LinkPurpose,
    locale: Locale,
    token: string,
  ): Promise<Mail> {
    const ttl = purpose === "VERIFY_EMAIL" ? config.lifetimes.verifyLink : config.lifetimes.resetLink;
    const now = clock.now();
    await accounts.insertLink(sha256(token), account.id, purpose, new Date(now + ttl * 1000), new Date(now));
    const page = purpose === "VERIFY_EMAIL" ? "verify-email" : "reset-password";
    return {
      to: account.email,
      ...mailTexts.account(locale, purpose === "VERIFY_EMAIL" ? "verify" : "reset"),
      link: `${consoleUrl}/${page}?token=${token}`,
    };
  }

  return async (intent: MailIntent, token: string) => {
    switch (intent.kind) {
      case "email verification": {
        const account = await accounts.find(intent.accountId);
        if (!account) return undefined;
        return linkMail(account, "VERIFY_EMAIL", intent.locale, token);
      }
      case "sign-up notice":
        return {
          to: intent.to,
          ...mailTexts.account(await mailLocale(intent.locale, intent.to), "taken"),
          link: `${consoleUrl}/sign-in`,
        };
      case "password reset": {
        // The lookup happens here, off the request path: a known and an unknown email cost a request the same.
        const account = await accounts.findByEmail(intent.to);
        if (!account || account.suspended_at) return undefined;
        return linkMail(account, "RESET_PASSWORD", await mailLocale(intent.locale, intent.to), token);
      }
      case "organization invitation": {
        // The request stored this token's hash with the invitation. One resent or revoked meanwhile is still mailed,
        // as when mail was composed at once: its link then says why it no longer works, and how many mails an
        // invitation's sends make does not depend on how fast the queue runs.
        const invitation = await createOrganizationMemberQueries(sql).findInvitation(sha256(token));
        if (!invitation) return undefined;
        const [organization, known] = await Promise.all([
          findOrganization(sql, invitation.organization_id),
          accounts.localeOf(invitation.email),
        ]);
        const words = mailTexts.invitation(known ?? intent.inviterLocale, {
          organization: organization?.name ?? "",
          inviter: intent.inviter,
          role: invitation.role,
          expiresAt: invitation.expires_at,
        });
        return { to: invitation.email, ...words, link: `${consoleUrl}/invitations/accept?token=${token}` };
      }
      case "webhook endpoint disabled":
        // In the member's language (the one their account last used), as the account mails.
        return {
          to: intent.to,
          ...mailTexts.endpointDisabled(await mailLocale(undefined, intent.to), {
            app: intent.appName,
            url: intent.url,
            days: intent.days,
          }),
          link: `${consoleUrl}/apps/${encodeURIComponent(intent.appId)}`,
        };
    }
  };
}
