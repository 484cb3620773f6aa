// A console account made by the platform rather than signed up: the demo organization's owner (src/demo/), whose
// login demo.json records so a newcomer can open the console as the organization that owns the demo apps.
import type postgres from "postgres";
import { hashPassword, verifyPassword } from "../credential/index.js";
import type { IdSource } from "../runtime/ids.js";
import { createDeveloperAccountQueries } from "./queries/developer-account-queries.js";
import { createOrganizationMemberQueries } from "./queries/organization-member-queries.js";
import { createProgramQueries } from "./queries/program-queries.js";

export interface OwnerLogin {
  email: string;
  password: string;
}

/**
 * A verified developer account with `email`, OWNER of the organization, and its login. `known` (the login recorded
 * before) is returned as it is while it still signs in and owns the organization; otherwise the account is made,
 * or given a new password when it exists (the record was lost), verified, unsuspended and made OWNER. The password
 * is random (144 bits, base64url: the console's password policy holds) and stored scrypt-hashed as every console
 * account's; only the caller sees it.
 */
export async function ensureOrganizationOwner(options: {
  sql: postgres.Sql;
  organizationId: number;
  email: string;
  known: OwnerLogin | undefined;
  now: Date;
  ids: IdSource;
  /** scrypt's cost for the new password (PASSWORD_HASH_COST). */
  passwordHashCost: number;
}): Promise<OwnerLogin> {
  const { sql, organizationId, email, known, now } = options;
  const accounts = createDeveloperAccountQueries(sql);
  const members = createOrganizationMemberQueries(sql);
  const existing = await accounts.findByEmail(email);
  if (existing && known?.email === email && (await verifyPassword(known.password, existing.password_hash))) {
    const member = await members.findMember(organizationId, existing.id);
    if (member?.role === "OWNER" && existing.verified_at && !existing.suspended_at) return known;
  }
  const password = options.ids.randomToken(18);
  const passwordHash = await hashPassword(password, options.passwordHashCost);
  await sql.begin(async (tx) => {
    const accountsTx = createDeveloperAccountQueries(tx);
    const membersTx = createOrganizationMemberQueries(tx);
    const account = existing ?? (await accountsTx.insert(email, passwordHash, now));
    if (!account) throw new Error(`console: the account ${email} could not be created`);
    if (existing) await accountsTx.setPassword(existing.id, passwordHash);
    await accountsTx.markVerified(account.id, now);
    if (account.suspended_at) await accountsTx.setSuspended(account.id, null);
    const member = await membersTx.findMember(organizationId, account.id);
    if (!member) await membersTx.insertMember(organizationId, account.id, "OWNER", now);
    else if (member.role !== "OWNER") await membersTx.setRole(organizationId, account.id, "OWNER");
  });
  return { email, password };
}

/** The agreement a platform with none gets when the demo admits its owner (staff publish the real one over it). */
export const demoAgreement = {
  title: "Developer agreement (demo)",
  url: "https://partner.example/agreement/demo",
} as const;

/**
 * Admits the account `email` to the partner program as staff would: an APPROVED application (made and decided now
 * unless one is approved already) and a signature of the active agreement; a platform with no agreement yet gets
 * `demoAgreement` as version 1. One transaction, idempotent: a second run changes nothing, and a newer agreement
 * published since is signed.
 */
export async function admitToProgram(options: {
  sql: postgres.Sql;
  email: string;
  companyName: string;
  now: Date;
}): Promise<void> {
  const { sql, email, companyName, now } = options;
  await sql.begin(async (tx) => {
    const account = await createDeveloperAccountQueries(tx).findByEmail(email);
    if (!account) throw new Error(`console: no account ${email} to admit`);
    const program = createProgramQueries(tx);
    if (!(await program.hasApproved(account.id))) {
      // A pending application of the account (made on the page) is decided; otherwise one is made and decided.
      const made = await program.insertApplication(
        { accountId: account.id, companyName, website: "", useCase: "The demo world (src/demo/)" },
        now,
      );
      const pending = made ?? (await program.latestApplication(account.id));
      if (pending) await program.decide(pending.id, "APPROVED", now);
    }
    const active =
      (await program.activeAgreement()) ?? (await program.publish(demoAgreement.title, demoAgreement.url, now));
    await program.signIfActive(account.id, active.version, now);
  });
}
