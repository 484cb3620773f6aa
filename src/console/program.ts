// ConsoleService, the partner program: the developer's program application (NDA) and agreement signature, and the
// platform staff's decisions, agreement versions and account suspension (internal port only).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ConsoleService, ProgramApplicationSchema } from "../../gen/partnerapi/v1/console_service_pb.js";
import { applicationStates, type ConsoleContext } from "./console-context.js";
import { createDeveloperAccountQueries } from "./queries/developer-account-queries.js";
import { createProgramQueries, type ApplicationRow } from "./queries/program-queries.js";

export function createProgramHandlers(
  /** Only what this section uses of the console's shared context (./console-context.ts). */
  shared: Pick<ConsoleContext, "authenticate" | "describeAccount" | "fail" | "invalid" | "logger" | "now" | "sql">,
): Pick<
  ServiceImpl<typeof ConsoleService>,
  | "submitProgramApplication"
  | "getActiveAgreement"
  | "signAgreement"
  | "decideProgramApplication"
  | "listProgramApplications"
  | "publishAgreementVersion"
  | "setAccountSuspended"
> {
  const { logger, sql, fail, invalid, now, authenticate, describeAccount } = shared;

  const describeApplication = (row: ApplicationRow): MessageInitShape<typeof ProgramApplicationSchema> => ({
    applicationId: BigInt(row.id),
    accountId: BigInt(row.account_id),
    companyName: row.company_name,
    website: row.website,
    useCase: row.use_case,
    state: applicationStates[row.state],
    createdAt: row.created_at.toISOString(),
    decidedAt: row.decided_at?.toISOString(),
  });

  const describeAgreement = (row: { version: number; title: string; url: string; published_at: Date }) => ({
    version: row.version,
    title: row.title,
    url: row.url,
    publishedAt: row.published_at.toISOString(),
  });

  return {
    async submitProgramApplication(request, ctx) {
      const { account } = await authenticate(ctx);
      const program = createProgramQueries(sql);
      // One application at a time: a pending one (the partial unique index) or an approved one stands.
      if (await program.hasApproved(account.id)) throw fail("developer.nda_already_submitted");
      const row = await program.insertApplication(
        {
          accountId: account.id,
          companyName: request.companyName.trim(),
          website: request.website.trim(),
          useCase: request.useCase.trim(),
        },
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
  };
}
