// Queries of the partner program: control.program_applications, agreement_versions and agreement_signatures.
import type { SqlClient } from "../../storage/sql-client.js";

export type ApplicationState = "PENDING" | "APPROVED" | "DECLINED";

export interface ApplicationRow {
  id: number;
  account_id: number;
  company_name: string;
  website: string;
  use_case: string;
  state: ApplicationState;
  created_at: Date;
  decided_at: Date | null;
}

export interface AgreementRow {
  version: number;
  title: string;
  url: string;
  published_at: Date;
}

const applicationColumns = "id, account_id, company_name, website, use_case, state, created_at, decided_at";

export function createProgramQueries(sql: SqlClient) {
  return {
    /** Inserts a pending application; undefined when one is pending already (the partial unique index). */
    async insertApplication(
      input: { accountId: number; companyName: string; website: string; useCase: string },
      now: Date,
    ): Promise<ApplicationRow | undefined> {
      const [row] = await sql<ApplicationRow[]>`
        insert into control.program_applications (account_id, company_name, website, use_case, created_at)
        values (${input.accountId}, ${input.companyName}, ${input.website}, ${input.useCase}, ${now})
        on conflict (account_id) where state = 'PENDING' do nothing
        returning ${sql.unsafe(applicationColumns)}`;
      return row;
    },
    /** The account's newest application. */
    async latestApplication(accountId: number): Promise<ApplicationRow | undefined> {
      const [row] = await sql<ApplicationRow[]>`
        select ${sql.unsafe(applicationColumns)} from control.program_applications
        where account_id = ${accountId} order by id desc limit 1`;
      return row;
    },
    async hasApproved(accountId: number): Promise<boolean> {
      const rows =
        await sql`select 1 from control.program_applications where account_id = ${accountId} and state = 'APPROVED' limit 1`;
      return rows.length > 0;
    },
    async listApplications(): Promise<ApplicationRow[]> {
      return sql<ApplicationRow[]>`
        select ${sql.unsafe(applicationColumns)} from control.program_applications
        order by (state = 'PENDING') desc, id desc limit 500`;
    },
    async findApplication(id: number): Promise<ApplicationRow | undefined> {
      const [row] = await sql<
        ApplicationRow[]
      >`select ${sql.unsafe(applicationColumns)} from control.program_applications where id = ${id}`;
      return row;
    },
    /** Decides a pending application: one conditional write; undefined when it was not pending. */
    async decide(id: number, state: "APPROVED" | "DECLINED", now: Date): Promise<ApplicationRow | undefined> {
      const [row] = await sql<ApplicationRow[]>`
        update control.program_applications set state = ${state}, decided_at = ${now}
        where id = ${id} and state = 'PENDING' returning ${sql.unsafe(applicationColumns)}`;
      return row;
    },

    async activeAgreement(): Promise<AgreementRow | undefined> {
      const [row] = await sql<
        AgreementRow[]
      >`select version, title, url, published_at from control.agreement_versions order by version desc limit 1`;
      return row;
    },
    /** Publishes the next version (one more than the newest) under a table lock, so versions never collide. */
    async publish(title: string, url: string, now: Date): Promise<AgreementRow> {
      await sql`lock table control.agreement_versions in exclusive mode`;
      const [row] = await sql<AgreementRow[]>`
        insert into control.agreement_versions (version, title, url, published_at)
        select coalesce(max(version), 0) + 1, ${title}, ${url}, ${now} from control.agreement_versions
        returning version, title, url, published_at`;
      return row!;
    },
    /** Signs `version` when it is still the active one (checked in the same statement); false otherwise. */
    async signIfActive(accountId: number, version: number, now: Date): Promise<boolean> {
      const rows = await sql`
        insert into control.agreement_signatures (account_id, version, signed_at)
        select ${accountId}, ${version}, ${now}
        where ${version} = (select max(version) from control.agreement_versions)
        on conflict on constraint agreement_signatures__account_id_version__pkey do nothing
        returning 1`;
      if (rows.length === 1) return true;
      const [active] = await sql<
        { version: number | null }[]
      >`select max(version) as version from control.agreement_versions`;
      return active?.version === version; // signed before: fine
    },
    async latestSignedVersion(accountId: number): Promise<number> {
      const [row] = await sql<
        { version: number | null }[]
      >`select max(version) as version from control.agreement_signatures where account_id = ${accountId}`;
      return row?.version ?? 0;
    },
  };
}
