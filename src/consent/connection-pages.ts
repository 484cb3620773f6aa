// The consent site's connections: GET /oauth/connections (the company's connected apps, when each last called) and
// POST /oauth/connections/disconnect (owner only, a confirmation step first).
import { findMerchant, scopesForProduct, type Product } from "../credential/index.js";
import { translator } from "../web/i18n.js";
import { connectionsPage } from "./connections-page.js";
import { confirmationPage, type PageContext } from "./pages.js";
import type { Session } from "./sessions.js";
import type { ConsentKit, Reply, Visit } from "./consent-site.js";

export function createConnectionPages(kit: ConsentKit) {
  const { options, message } = kit;
  const { connections } = options;

  /** The connected-apps page (with a message after a disconnect). */
  const connectionsReply = async (session: Session, context: PageContext, notice?: string): Promise<Reply> => {
    const [merchant, rows, lastCalls] = await Promise.all([
      findMerchant(options.sql, session.companyId),
      connections.list(session.companyId),
      options.lastCalls?.(session.companyId) ?? Promise.resolve(new Map<string, Date>()),
    ]);
    return {
      status: 200,
      html: connectionsPage(context, {
        companyName: merchant?.name ?? String(session.companyId),
        owner: session.role === "OWNER",
        csrf: session.csrf,
        notice,
        connections: rows.map((row) => ({
          appId: row.app_id,
          appName: row.app_name,
          organizationName: row.organization_name,
          product: row.product,
          environment: row.environment,
          scopes: scopesForProduct(row.product as Product),
          since: row.created_at,
          lastCall: lastCalls.get(row.app_id),
        })),
      }),
    };
  };

  /** POST /oauth/connections/disconnect, owner only: a confirmation step first, then the list with a message. */
  const disconnect = async (visit: Visit, form: URLSearchParams, session: Session): Promise<Reply> => {
    if (session.role !== "OWNER")
      return message(403, visit.context, "consent.ownerOnlyTitle", "consent.ownerOnlyDisconnect");
    const appId = form.get("app_id") ?? "";
    const connection = (await connections.list(session.companyId)).find((row) => row.app_id === appId);
    const back = { locale: visit.locale, here: { path: "/oauth/connections" } };
    // Already gone (another tab, another owner): the list as it is now.
    if (!connection) return connectionsReply(session, back);
    if (form.get("confirm") !== "yes") {
      return {
        status: 200,
        html: confirmationPage(back, {
          kind: "disconnect",
          csrf: session.csrf,
          appName: connection.app_name,
          fields: { app_id: appId },
          scopes: scopesForProduct(connection.product as Product),
        }),
      };
    }
    await connections.disconnect(session.companyId, appId);
    return connectionsReply(
      session,
      back,
      translator(visit.locale)("consent.disconnected", { app: connection.app_name }),
    );
  };

  return { connectionsReply, disconnect };
}
