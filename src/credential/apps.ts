// CredentialService, apps and their review: create (with sandbox client credentials and the organization's sandbox
// merchants granted), read, rename and links (website, privacy policy, terms: ./app-links.ts, all three needed
// before review), the review transitions (app-states.ts) and the redirect URIs. Names after
// review: merchants see the name staff reviewed; a rename of an APPROVED app waits as its pending name until
// ApproveApp takes it or RejectApp drops it (docs/decisions.md, "Credentials").
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { AppSchema, CredentialService } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { nextAppState, type AppTransition } from "./app-states.js";
import { environmentEnum, productEnum, productName, type CredentialEnvironment } from "./products.js";
import { maxRedirectUris, redirectUriViolations } from "./redirect-uris.js";
import { checkAppLinks, missingAppLinks, type AppLinkField, type AppLinks } from "./app-links.js";
import { hashSecret, newClientId, newClientSecret } from "./secrets.js";
import { createAppQueries, type AppRow } from "./queries/app-queries.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import { serviceError, serviceErrorWithDetails } from "../errors/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import { domain, fail, invalid, lockLiveApp, type CredentialContext } from "./credential-context.js";

/** The app as the API shows it: state, redirect URIs, live client ids and API keys with their allowlists. */
async function describeApp(db: SqlClient, app: AppRow): Promise<MessageInitShape<typeof AppSchema>> {
  const credentials = createCredentialQueries(db);
  const apps = createAppQueries(db);
  const clients = await credentials.liveClients(app.id);
  const keys = await credentials.apiKeysOfApp(app.id);
  return {
    appId: app.id,
    organizationId: BigInt(app.organization_id),
    name: app.name,
    pendingName: app.pending_name ?? "",
    websiteUrl: app.website_url ?? "",
    privacyPolicyUrl: app.privacy_policy_url ?? "",
    termsUrl: app.terms_url ?? "",
    product: productEnum(app.product),
    state: app.state,
    redirectUris: await apps.redirectUris(app.id),
    credentials: await Promise.all(
      clients.map(async (client) => ({
        clientId: client.client_id,
        environment: environmentEnum(client.environment),
        allowedIps: await credentials.allowlist({ clientId: client.client_id }),
      })),
    ),
    apiKeys: await Promise.all(
      keys.map(async (key) => ({
        apiKeyId: String(key.id),
        name: key.name,
        environment: environmentEnum(key.environment),
        revoked: key.revoked_at !== null,
        allowedIps: await credentials.allowlist({ apiKeyId: key.id }),
      })),
    ),
  };
}

/** The links a request gives, checked: developer.app_link_invalid naming the first offence, with all in details. */
function linksOf(given: Partial<Record<AppLinkField, string | undefined>>): Partial<AppLinks> {
  const { links, violations } = checkAppLinks(given);
  const [first] = violations;
  if (first) throw serviceErrorWithDetails(domain, "developer.app_link_invalid", first, violations);
  return links;
}

/** developer.app_links_missing for `missing` (in the fields' order), one detail each. */
function linksMissing(missing: readonly AppLinkField[]) {
  return serviceErrorWithDetails(
    domain,
    "developer.app_links_missing",
    { fields: missing.join(", ") },
    missing.map((field) => ({ field, rule: "required" })),
  );
}

export function createAppHandlers(
  credential: CredentialContext,
): Pick<
  ServiceImpl<typeof CredentialService>,
  "createApp" | "getApp" | "updateApp" | "submitApp" | "approveApp" | "rejectApp" | "archiveApp" | "setRedirectUris"
> {
  const { sql, ids, logger, now, forget, sandboxGrants } = credential;

  /** Issues a client id and its first secret inside the caller's transaction; the secret is returned once. */
  async function issueClient(tx: SqlClient, appId: string, environment: CredentialEnvironment) {
    const clientId = newClientId(ids, environment);
    const clientSecret = newClientSecret(ids, environment);
    const credentials = createCredentialQueries(tx);
    await credentials.insertClient(clientId, appId, environment, now());
    await credentials.insertSecret(clientId, hashSecret(clientSecret), now());
    return { clientId, environment: environmentEnum(environment), clientSecret, allowedIps: [] };
  }

  /** Runs a review transition under the app's row lock. */
  async function transition(
    appId: string,
    action: AppTransition,
    also?: (tx: SqlClient, app: AppRow) => Promise<void>,
  ) {
    return sql.begin(async (tx) => {
      const app = await lockLiveApp(tx, appId);
      const next = nextAppState(app.state, action);
      if (!next) throw fail("developer.review_not_in_review");
      await createAppQueries(tx).setState(appId, next, now());
      const changed = { ...app, state: next };
      await also?.(tx, changed);
      return { app: changed, describe: await describeApp(tx, changed) };
    });
  }

  /**
   * The name review of an APPROVED app with a pending name, under the app's row lock: approval makes it the name,
   * rejection drops it; the app stays APPROVED. Undefined when there is none (the ordinary review applies).
   */
  async function decidePendingName(appId: string, decision: "approve" | "reject") {
    return sql.begin(async (tx) => {
      const app = await lockLiveApp(tx, appId);
      if (app.state !== "APPROVED" || app.pending_name === null) return undefined;
      const apps = createAppQueries(tx);
      const name = decision === "approve" ? app.pending_name : app.name;
      if (decision === "approve") await apps.rename(app.id, name, now());
      else await apps.setPendingName(app.id, null, now());
      logger.info(decision === "approve" ? "app name approved" : "app name rejected", { appId });
      return describeApp(tx, { ...app, name, pending_name: null });
    });
  }

  return {
    async createApp(request) {
      const name = request.name.trim();
      const product = productName(request.product);
      if (!name || !product) throw invalid([!name && "name", !product && "product"].filter(Boolean).join(", "));
      const links = linksOf({
        website_url: request.websiteUrl,
        privacy_policy_url: request.privacyPolicyUrl,
        terms_url: request.termsUrl,
      });
      return sql.begin(async (tx) => {
        const organization = await createOrganizationQueries(tx).find(Number(request.organizationId));
        if (!organization) throw fail("developer.organization_not_found");
        const app = await createAppQueries(tx).insert(
          {
            id: `app_${ids.randomToken(12)}`,
            organization_id: organization.id,
            name,
            product,
            website_url: links.website_url ?? null,
            privacy_policy_url: links.privacy_policy_url ?? null,
            terms_url: links.terms_url ?? null,
          },
          now(),
        );
        const sandbox = await issueClient(tx, app.id, "SANDBOX");
        await sandboxGrants.grantMerchantsToApp(tx, app.id, organization.id, now());
        logger.info("app created", { appId: app.id, organizationId: organization.id, product });
        return { app: await describeApp(tx, app), sandbox };
      });
    },

    async getApp(request) {
      const app = await createAppQueries(sql).find(request.appId);
      if (!app) throw fail("developer.app_not_found");
      return { app: await describeApp(sql, app) };
    },

    async updateApp(request) {
      const links = linksOf({
        website_url: request.websiteUrl,
        privacy_policy_url: request.privacyPolicyUrl,
        terms_url: request.termsUrl,
      });
      return sql.begin(async (tx) => {
        const locked = await lockLiveApp(tx, request.appId);
        if (request.product !== undefined && request.product !== productEnum(locked.product)) {
          throw fail("developer.product_immutable");
        }
        const apps = createAppQueries(tx);
        // Links change at once, in any state; an app in review or approved keeps all three (review needed them).
        const linked: AppRow = { ...locked, ...links };
        if (locked.state === "IN_REVIEW" || locked.state === "APPROVED") {
          const lost = missingAppLinks(linked).filter((field) => !missingAppLinks(locked).includes(field));
          if (lost.length > 0) throw linksMissing(lost);
        }
        if (Object.keys(links).length > 0) await apps.setLinks(locked.id, links, now());
        const app = linked;
        const name = request.name.trim();
        if (!name) return { app: await describeApp(tx, app) };
        if (app.state !== "APPROVED") {
          if (name !== app.name) await apps.rename(app.id, name, now());
          return { app: await describeApp(tx, { ...app, name, pending_name: null }) };
        }
        // The reviewed name stays what merchants see; a rename back to it withdraws the pending one.
        const pending = name === app.name ? null : name;
        if (pending !== app.pending_name) await apps.setPendingName(app.id, pending, now());
        if (pending) logger.info("rename of an approved app awaits review", { appId: app.id });
        return { app: await describeApp(tx, { ...app, pending_name: pending }) };
      });
    },

    async submitApp(request) {
      const result = await transition(request.appId, "submit", async (_tx, app) => {
        // Merchants read these pages before they connect: review needs all three (the state check comes first).
        const missing = missingAppLinks(app);
        if (missing.length > 0) throw linksMissing(missing);
      });
      return { app: result.describe };
    },

    async approveApp(request) {
      const named = await decidePendingName(request.appId, "approve");
      if (named) return { app: named };
      let production: Awaited<ReturnType<typeof issueClient>> | undefined;
      const result = await transition(request.appId, "approve", async (tx, app) => {
        // The production pair is issued once, at the first approval; the app never goes back to review after.
        const live = await createCredentialQueries(tx).liveClients(app.id);
        if (!live.some((client) => client.environment === "PRODUCTION"))
          production = await issueClient(tx, app.id, "PRODUCTION");
      });
      logger.info("app approved", { appId: request.appId });
      return { app: production ? await describeApp(sql, result.app) : result.describe, production };
    },

    async rejectApp(request) {
      const named = await decidePendingName(request.appId, "reject");
      if (named) return { app: named };
      return { app: (await transition(request.appId, "reject")).describe };
    },

    async archiveApp(request) {
      const result = await transition(request.appId, "archive");
      forget();
      logger.info("app archived", { appId: request.appId });
      return { app: result.describe };
    },

    async setRedirectUris(request) {
      const uris = request.redirectUris;
      if (uris.length > maxRedirectUris)
        throw serviceError(domain, "developer.redirect_uri_limit", { limit: maxRedirectUris });
      const violations = redirectUriViolations(uris);
      const [first] = violations;
      if (first) throw serviceErrorWithDetails(domain, "developer.redirect_uri_invalid", first, violations);
      return sql.begin(async (tx) => {
        await lockLiveApp(tx, request.appId);
        const apps = createAppQueries(tx);
        await apps.replaceRedirectUris(request.appId, uris, now());
        return { redirectUris: await apps.redirectUris(request.appId) };
      });
    },
  };
}
