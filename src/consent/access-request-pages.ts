// The consent site's ADSR access requests: GET /oauth/access-requests, and the owner's POST .../decision (approve
// with all or fewer stores, or decline) and POST .../withdraw.
import { findMerchant } from "../credential/index.js";
import { readServiceError } from "../errors/index.js";
import { translator } from "../web/i18n.js";
import { accessRequestsPage, type AccessRequestView } from "./access-requests-page.js";
import { confirmationPage, type PageContext } from "./pages.js";
import type { Session } from "./sessions.js";
import type { AccessRequestAction, ConsentKit, Reply, Visit } from "./consent-site.js";

export function createAccessRequestPages(kit: ConsentKit) {
  const { options, accessRequests, error, message } = kit;
  const { logger } = options;

  /** The access-requests page (with a message after a decision, or the inline error of an approval without stores). */
  const accessRequestsReply = async (
    session: Session,
    context: PageContext,
    notice?: string,
    refused?: string,
  ): Promise<Reply> => {
    const [merchant, rows] = await Promise.all([
      findMerchant(options.sql, session.companyId),
      accessRequests.listForCompany(session.companyId),
    ]);
    // Store names come from the merchant's region; when it cannot answer, the stores show by number.
    const storeNames =
      rows.length > 0 && options.storeNames
        ? await options.storeNames(session.companyId).catch((cause: unknown) => {
            logger.warn("consent site: store names unavailable", { companyId: session.companyId, error: cause });
            return new Map<number, string>();
          })
        : new Map<number, string>();
    const view = (row: (typeof rows)[number]): AccessRequestView => ({
      id: String(row.id),
      appId: row.app_id,
      appName: row.app_name,
      organizationName: row.organization_name,
      reviewed: row.app_state === "APPROVED",
      links: {
        ...(row.website_url ? { website: row.website_url } : {}),
        ...(row.privacy_policy_url ? { privacyUrl: row.privacy_policy_url } : {}),
        ...(row.terms_url ? { termsUrl: row.terms_url } : {}),
      },
      state: row.state,
      storeIds: row.store_ids,
      approvedStoreIds: row.approved_store_ids ?? [],
      created: row.created_at,
      expires: row.expires_at,
    });
    return {
      status: 200,
      html: accessRequestsPage(context, {
        companyName: merchant?.name ?? String(session.companyId),
        owner: session.role === "OWNER",
        csrf: session.csrf,
        pending: rows.filter((row) => row.state === "PENDING").map(view),
        approved: rows.filter((row) => row.state === "APPROVED").map(view),
        storeNames,
        notice,
        refused,
      }),
    };
  };

  /**
   * The steps of an access request's decision or withdrawal, owner only: the request named by the form, the
   * company's own (the module checks the owner again, and the request's state under its row lock); then the action,
   * and the list with its notice. An error of the catalogue is shown on its page.
   */
  const onAccessRequest =
    (act: (request: AccessRequestAction) => Promise<Reply | { notice: string }>) =>
    async (visit: Visit, form: URLSearchParams, session: Session): Promise<Reply> => {
      const back = { locale: visit.locale, here: { path: "/oauth/access-requests" } };
      if (session.role !== "OWNER") return message(403, back, "consent.ownerOnlyTitle", "consent.ownerOnlyDecide");
      const id = Number(
        /^[1-9]\d{0,15}$/.test(form.get("access_request_id") ?? "") ? form.get("access_request_id") : 0,
      );
      const owned = id > 0 ? await accessRequests.get(id).catch(() => undefined) : undefined;
      // Another merchant's request is as unknown as a missing one.
      if (!owned || owned.company_id !== session.companyId) return error("developer.access_request_not_found", back);
      const appName =
        (await accessRequests.listForCompany(session.companyId)).find((row) => Number(row.id) === id)?.app_name ?? "";
      let outcome: Reply | { notice: string };
      try {
        outcome = await act({ id, appName, form, session, back, t: translator(visit.locale) });
      } catch (cause) {
        const { code, params } = readServiceError(cause);
        if (code === "server.internal") throw cause;
        return error(code, back, params);
      }
      return "notice" in outcome ? accessRequestsReply(session, back, outcome.notice) : outcome;
    };

  /** POST /oauth/access-requests/withdraw: the consequence first; the withdrawal only from its confirmation's form. */
  const withdrawAccessRequest = onAccessRequest(async ({ id, appName, form, session, back, t }) => {
    if (form.get("confirm") !== "yes") {
      return {
        status: 200,
        html: confirmationPage(back, {
          kind: "withdraw",
          csrf: session.csrf,
          appName,
          fields: { access_request_id: String(id) },
        }),
      };
    }
    await accessRequests.withdraw(id, session.userId);
    return { notice: t("consent.withdrawn", { app: appName }) };
  });

  /** POST /oauth/access-requests/decision: decline, or approve with all or fewer of the stores asked for. */
  const decideAccessRequest = onAccessRequest(async ({ id, appName, form, session, back, t }) => {
    if (form.get("decision") === "decline") {
      await accessRequests.decline(id, session.userId);
      return { notice: t("consent.declinedNotice", { app: appName }) };
    }
    if (form.get("decision") === "approve") {
      const stores = form.getAll("store_ids").map((value) => (/^[1-9]\d{0,15}$/.test(value) ? Number(value) : -1));
      // No store chosen: the same page, the error at that request's stores (focused), nothing written.
      if (stores.length === 0)
        return { ...(await accessRequestsReply(session, back, undefined, String(id))), status: 400 };
      await accessRequests.approve(id, session.userId, stores);
      return { notice: t("consent.approvedNotice", { app: appName }) };
    }
    return message(400, back, "common.badRequestTitle", "consent.chooseApproveOrDecline");
  });

  return { accessRequestsReply, decideAccessRequest, withdrawAccessRequest };
}
