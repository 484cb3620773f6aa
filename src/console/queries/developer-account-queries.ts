// Queries of control.developer_accounts, developer_links (one-time mailed links) and the console sessions
// (console_sessions, console_refresh_tokens). Every function runs on the `sql` given, so a transaction can pass its own.
import type { Locale } from "../../errors/index.js";
import type { SqlClient } from "../../storage/sql-client.js";

export interface DeveloperAccountRow {
  id: number;
  email: string;
  password_hash: string;
  verified_at: Date | null;
  suspended_at: Date | null;
}

export type LinkPurpose = "VERIFY_EMAIL" | "RESET_PASSWORD";

export interface LinkRow {
  account_id: number;
  purpose: LinkPurpose;
  expires_at: Date;
  used_at: Date | null;
}

export interface RefreshTokenRow {
  session_id: string;
  account_id: number;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
}

const accountColumns = "id, email, password_hash, verified_at, suspended_at";

export function createDeveloperAccountQueries(sql: SqlClient) {
  return {
    /** Inserts an account; undefined when the email is taken (the unique constraint, also under parallel sign-ups). */
    async insert(
      email: string,
      passwordHash: string,
      now: Date,
      locale: Locale | null = null,
    ): Promise<DeveloperAccountRow | undefined> {
      const [row] = await sql<DeveloperAccountRow[]>`
        insert into control.developer_accounts (email, password_hash, created_at, locale)
        values (${email}, ${passwordHash}, ${now}, ${locale})
        on conflict on constraint developer_accounts__email__key do nothing
        returning ${sql.unsafe(accountColumns)}`;
      return row;
    },
    async findByEmail(email: string): Promise<DeveloperAccountRow | undefined> {
      const [row] = await sql<
        DeveloperAccountRow[]
      >`select ${sql.unsafe(accountColumns)} from control.developer_accounts where email = ${email}`;
      return row;
    },
    async find(id: number): Promise<DeveloperAccountRow | undefined> {
      const [row] = await sql<
        DeveloperAccountRow[]
      >`select ${sql.unsafe(accountColumns)} from control.developer_accounts where id = ${id}`;
      return row;
    },
    /** Records the language the account last used the console in (sign-up, sign-in): its mail is written in it. */
    async setLocale(id: number, locale: Locale): Promise<void> {
      await sql`update control.developer_accounts set locale = ${locale} where id = ${id} and locale is distinct from ${locale}`;
    },
    /** The language the account of `email` last used, when there is such an account and it is known. */
    async localeOf(email: string): Promise<Locale | undefined> {
      const [row] = await sql<Array<{ locale: Locale | null }>>`
        select locale from control.developer_accounts where email = ${email}`;
      return row?.locale ?? undefined;
    },
    async markVerified(id: number, now: Date): Promise<void> {
      await sql`update control.developer_accounts set verified_at = coalesce(verified_at, ${now}) where id = ${id}`;
    },
    async setPassword(id: number, passwordHash: string): Promise<void> {
      await sql`update control.developer_accounts set password_hash = ${passwordHash} where id = ${id}`;
    },
    async setSuspended(id: number, suspendedAt: Date | null): Promise<DeveloperAccountRow | undefined> {
      const [row] = await sql<DeveloperAccountRow[]>`
        update control.developer_accounts set suspended_at = ${suspendedAt} where id = ${id} returning ${sql.unsafe(accountColumns)}`;
      return row;
    },

    /** Stores a link; one already stored under the hash (its mail's job ran before) is kept as it is. */
    async insertLink(
      tokenHash: string,
      accountId: number,
      purpose: LinkPurpose,
      expiresAt: Date,
      now: Date,
    ): Promise<void> {
      await sql`
        insert into control.developer_links (token_hash, account_id, purpose, expires_at, created_at)
        values (${tokenHash}, ${accountId}, ${purpose}, ${expiresAt}, ${now})
        on conflict (token_hash) do nothing`;
    },
    async findLink(tokenHash: string, purpose: LinkPurpose): Promise<LinkRow | undefined> {
      const [row] = await sql<LinkRow[]>`
        select account_id, purpose, expires_at, used_at from control.developer_links where token_hash = ${tokenHash} and purpose = ${purpose}`;
      return row;
    },
    /** Uses a link once: one conditional write; false when it was used (or expired) meanwhile. */
    async useLink(tokenHash: string, now: Date): Promise<boolean> {
      const rows = await sql`
        update control.developer_links set used_at = ${now}
        where token_hash = ${tokenHash} and used_at is null and expires_at > ${now} returning 1`;
      return rows.length === 1;
    },

    async insertSession(id: string, accountId: number, now: Date): Promise<void> {
      await sql`insert into control.console_sessions (id, account_id, created_at) values (${id}, ${accountId}, ${now})`;
    },
    async sessionRevoked(id: string): Promise<boolean> {
      const [row] = await sql<
        { revoked_at: Date | null }[]
      >`select revoked_at from control.console_sessions where id = ${id}`;
      return !row || row.revoked_at !== null;
    },
    async revokeSession(id: string, now: Date): Promise<void> {
      await sql`update control.console_sessions set revoked_at = coalesce(revoked_at, ${now}) where id = ${id}`;
    },
    async revokeSessionsOf(accountId: number, now: Date): Promise<void> {
      await sql`update control.console_sessions set revoked_at = ${now} where account_id = ${accountId} and revoked_at is null`;
    },
    async insertRefreshToken(tokenHash: string, sessionId: string, expiresAt: Date, now: Date): Promise<void> {
      await sql`
        insert into control.console_refresh_tokens (token_hash, session_id, expires_at, created_at)
        values (${tokenHash}, ${sessionId}, ${expiresAt}, ${now})`;
    },
    async findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | undefined> {
      const [row] = await sql<RefreshTokenRow[]>`
        select t.session_id, s.account_id, t.expires_at, t.used_at, s.revoked_at
        from control.console_refresh_tokens t join control.console_sessions s on s.id = t.session_id
        where t.token_hash = ${tokenHash}`;
      return row;
    },
    /** Rotates a refresh token out: one conditional write, so of two parallel presentations exactly one wins. */
    async useRefreshToken(tokenHash: string, now: Date): Promise<boolean> {
      const rows = await sql`
        update control.console_refresh_tokens set used_at = ${now}
        where token_hash = ${tokenHash} and used_at is null and expires_at > ${now} returning 1`;
      return rows.length === 1;
    },
  };
}
