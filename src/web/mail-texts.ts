// The words of the console's mail (invitations, verification, password reset, the sign-up notice), read in the
// recipient's language, from the same catalogues as the pages (src/web/messages/): the owner (src/console/) holds no
// words of its own and is handed these by app.ts.
import type { Locale } from "../errors/locale.js";
import { momentText, translator } from "./i18n.js";

/** What an invitation mail says: who invites, to which organization, with which role, until when. */
export interface InvitationFacts {
  organization: string;
  /** The inviter as the invitee knows them: accounts have no display name, so their email address. */
  inviter: string;
  role: "ADMIN" | "DEVELOPER" | "VIEWER";
  expiresAt: Date;
}

const roleKeys = {
  ADMIN: "console.roleAdmin",
  DEVELOPER: "console.roleDeveloper",
  VIEWER: "console.roleViewer",
} as const;

/**
 * A value inside a sentence of mail, isolated (U+2068 FIRST STRONG ISOLATE … U+2069 POP DIRECTIONAL ISOLATE) as the
 * pages isolate theirs in <bdi>: a Latin address or name in an Arabic subject keeps its own direction and leaves the
 * sentence's punctuation where it belongs; an Arabic name in an English mail likewise. Plain text has no <bdi>.
 */
export function isolated(value: string): string {
  return `\u2068${value}\u2069`;
}

/** The subject and text of an invitation mail in `locale` (the link goes below the text). */
export function invitationMailText(locale: Locale, facts: InvitationFacts): { subject: string; text: string } {
  const t = translator(locale);
  const params = {
    organization: isolated(facts.organization),
    inviter: isolated(facts.inviter),
    role: t(roleKeys[facts.role]),
    expires: isolated(momentText(locale, facts.expiresAt)),
  };
  return { subject: t("console.mailInvitationSubject", params), text: t("console.mailInvitationText", params) };
}

/** The account mails: a verification link, a password-reset link, or the notice that an address already has an account. */
export type AccountMailKind = "verify" | "reset" | "taken";

const accountMailKeys = {
  verify: ["console.mailVerifySubject", "console.mailVerifyText"],
  reset: ["console.mailResetSubject", "console.mailResetText"],
  taken: ["console.mailTakenSubject", "console.mailTakenText"],
} as const;

/** The subject and text of an account mail in `locale` (the link goes below the text). */
export function accountMailText(locale: Locale, kind: AccountMailKind): { subject: string; text: string } {
  const t = translator(locale);
  const [subject, text] = accountMailKeys[kind];
  return { subject: t(subject), text: t(text) };
}

/** What the notice of a disabled webhook endpoint says: whose app, which URL, after how many days of failures. */
export interface EndpointDisabledFacts {
  app: string;
  url: string;
  days: number;
}

/** The subject and text of the notice that an app's webhook endpoint was disabled, in `locale`. */
export function endpointDisabledMailText(
  locale: Locale,
  facts: EndpointDisabledFacts,
): { subject: string; text: string } {
  const t = translator(locale);
  const params = { app: isolated(facts.app), url: isolated(facts.url), days: facts.days };
  return {
    subject: t("console.mailEndpointDisabledSubject", params),
    text: t("console.mailEndpointDisabledText", params),
  };
}
