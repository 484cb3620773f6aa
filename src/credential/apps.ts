// The credential owner's apps and their review: create (with sandbox client credentials and the organization's sandbox
// merchants granted), read, rename and links (website, privacy policy, terms: ./app-links.ts, all three needed
// before review), the review transitions (app-states.ts) and the redirect URIs. Names after
// review: merchants see the name staff reviewed; a rename of an APPROVED app waits as its pending name until
// ApproveApp takes it or RejectApp drops it (docs/decisions.md, "Credentials").
import { nextAppState, type AppTransition } from "./app-states.js";
import type { CredentialEnvironment, Product } from "./products.js";
import { maxRedirectUris, redirectUriViolations } from "./redirect-uris.js";
import { checkAppLinks, missingAppLinks, type AppLinkField, type AppLinks } from "./app-links.js";
import { hashSecret, newClientId, newClientSecret } from "./secrets.js";
import { createAppQueries, type AppRow } from "./queries/app-queries.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import { serviceError, serviceErrorWithDetails } from "../errors/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import { domain, fail, invalid, lockLiveApp, type CredentialContext } from "./credential-context.js";

/** A live client id of an app, with its allowlist. */
export interface AppClient {
  clientId: string;
  environment: CredentialEnvironment;
  allowedIps: string[];
  /** When and to whom a secret of it was first handed out; undefined while nobody has one. */
  secretShown?: { at: Date; to: string | undefined };
}

/** An API key of an app (never the key itself), with its allowlist. */
export interface AppApiKey {
  apiKeyId: number;
  name: string;
  environment: CredentialEnvironment;
  revoked: boolean;
  allowedIps: string[];
}

/** An app as its developer sees it: state, links, redirect URIs, live client ids and API keys. */
export interface AppDescription {
  appId: string;
  organizationId: number;
  name: string;
  /** A rename of an APPROVED app waiting for review; null when none. */
  pendingName: string | null;
  websiteUrl: string | null;
  privacyPolicyUrl: string | null;
  termsUrl: string | null;
  requirePushedAuthorizationRequests: boolean;
  product: Product;
  state: AppRow["state"];
  /** Every token of the app must be DPoP-bound. */
  requireDpop: boolean;
  redirectUris: string[];
  credentials: AppClient[];
  apiKeys: AppApiKey[];
}

/** A client id just issued: its secret is shown once, here, and stored only as a hash. */
export interface NewClient {
  clientId: string;
  environment: CredentialEnvironment;
  clientSecret: string;
}

/** The links an app's create or update gives: when sent, each replaces the app's (empty removes it). */
export interface AppLinksGiven {
  websiteUrl?: string;
  privacyPolicyUrl?: string;
  termsUrl?: string;
}

export interface AppAdmin {
  /** An app of the organization, with its sandbox client id (secret shown once) and its sandbox grants. */
  createApp(
    organizationId: number,
    app: { name: string; product: Product | undefined } & AppLinksGiven,
  ): Promise<{ app: AppDescription; sandbox: NewClient }>;
  /** developer.app_not_found when there is none. */
  getApp(appId: string): Promise<AppDescription>;
  /**
   * Renames (an APPROVED app's rename waits for review) and sets links. `product`, when given, must be the app's
   * ("UNSPECIFIED": a product this build does not name, never the app's): developer.product_immutable.
   */
  updateApp(
    appId: string,
    change: {
      name: string;
      product?: Product | "UNSPECIFIED";
      requirePushedRequests?: boolean;
      requireDpop?: boolean;
    } & AppLinksGiven,
  ): Promise<AppDescription>;
  submitApp(appId: string): Promise<AppDescription>;
  /** The production client id (secret shown once) is issued at the first approval only. */
  approveApp(appId: string): Promise<{ app: AppDescription; production?: NewClient }>;
  rejectApp(appId: string): Promise<AppDescription>;
  archiveApp(appId: string): Promise<AppDescription>;
  /** Replaces the app's redirect URIs; the URIs now registered. */
  setRedirectUris(appId: string, uris: readonly string[]): Promise<string[]>;
}

/** The app as its developer sees it: state, redirect URIs, live client ids and API keys with their allowlists. */
async function describeApp(db: SqlClient, app: AppRow): Promise<AppDescription> {
  const credentials = createCredentialQueries(db);
  const apps = createAppQueries(db);
  const clients = await credentials.liveClients(app.id);
  const keys = await credentials.apiKeysOfApp(app.id);
  return {
    appId: app.id,
    organizationId: app.organization_id,
    name: app.name,
    pendingName: app.pending_name,
    websiteUrl: app.website_url,
    privacyPolicyUrl: app.privacy_policy_url,
    termsUrl: app.terms_url,
    requirePushedAuthorizationRequests: app.require_pushed_authorization_requests,
    product: app.product,
    state: app.state,
    requireDpop: app.require_dpop,
    redirectUris: await apps.redirectUris(app.id),
    credentials: await Promise.all(
      clients.map(async (client) => ({
        clientId: client.client_id,
        environment: client.environment,
        allowedIps: await credentials.allowlist({ clientId: client.client_id }),
        ...(client.secret_shown_at
          ? { secretShown: { at: client.secret_shown_at, to: client.secret_shown_to ?? undefined } }
          : {}),
      })),
    ),
    apiKeys: await Promise.all(
      keys.map(async (key) => ({
        apiKeyId: key.id,
        name: key.name,
        environment: key.environment,
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

export function createAppAdmin(credential: CredentialContext): AppAdmin {
  const { sql, ids, logger, now, forget, sandboxGrants } = credential;

  /** Issues a client id and its first secret inside the caller's transaction; the secret is returned once. */
  async function issueClient(tx: SqlClient, appId: string, environment: CredentialEnvironment): Promise<NewClient> {
    const clientId = newClientId(ids, environment);
    const clientSecret = newClientSecret(ids, environment);
    const credentials = createCredentialQueries(tx);
    await credentials.insertClient(clientId, appId, environment, now());
    await credentials.insertSecret(clientId, hashSecret(clientSecret), now());
    return { clientId, environment, clientSecret };
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
    async createApp(organizationId, request) {
      const name = request.name.trim();
      const product = request.product;
      if (!name || !product) throw invalid([!name && "name", !product && "product"].filter(Boolean).join(", "));
      const links = linksOf({
        website_url: request.websiteUrl,
        privacy_policy_url: request.privacyPolicyUrl,
        terms_url: request.termsUrl,
      });
      return sql.begin(async (tx) => {
        const organization = await createOrganizationQueries(tx).find(organizationId);
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

    async getApp(appId) {
      const app = await createAppQueries(sql).find(appId);
      if (!app) throw fail("developer.app_not_found");
      return describeApp(sql, app);
    },

    async updateApp(appId, request) {
      const links = linksOf({
        website_url: request.websiteUrl,
        privacy_policy_url: request.privacyPolicyUrl,
        terms_url: request.termsUrl,
      });
      return sql.begin(async (tx) => {
        const locked = await lockLiveApp(tx, appId);
        if (request.product !== undefined && request.product !== locked.product) {
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
        const app = { ...linked, ...(await applySecuritySettings(apps, locked, request, now())) };
        const name = request.name.trim();
        if (!name) return describeApp(tx, app);
        if (app.state !== "APPROVED") {
          if (name !== app.name) await apps.rename(app.id, name, now());
          return describeApp(tx, { ...app, name, pending_name: null });
        }
        // The reviewed name stays what merchants see; a rename back to it withdraws the pending one.
        const pending = name === app.name ? null : name;
        if (pending !== app.pending_name) await apps.setPendingName(app.id, pending, now());
        if (pending) logger.info("rename of an approved app awaits review", { appId: app.id });
        return describeApp(tx, { ...app, pending_name: pending });
      });
    },

    async submitApp(appId) {
      const result = await transition(appId, "submit", async (_tx, app) => {
        // Merchants read these pages before they connect: review needs all three (the state check comes first).
        const missing = missingAppLinks(app);
        if (missing.length > 0) throw linksMissing(missing);
      });
      return result.describe;
    },

    async approveApp(appId) {
      const named = await decidePendingName(appId, "approve");
      if (named) return { app: named };
      let production: NewClient | undefined;
      const result = await transition(appId, "approve", async (tx, app) => {
        // The production pair is issued once, at the first approval; the app never goes back to review after.
        const live = await createCredentialQueries(tx).liveClients(app.id);
        if (!live.some((client) => client.environment === "PRODUCTION"))
          production = await issueClient(tx, app.id, "PRODUCTION");
      });
      logger.info("app approved", { appId });
      return { app: production ? await describeApp(sql, result.app) : result.describe, production };
    },

    async rejectApp(appId) {
      const named = await decidePendingName(appId, "reject");
      if (named) return named;
      return (await transition(appId, "reject")).describe;
    },

    async archiveApp(appId) {
      const result = await transition(appId, "archive");
      forget();
      logger.info("app archived", { appId });
      return result.describe;
    },

    async setRedirectUris(appId, uris) {
      if (uris.length > maxRedirectUris)
        throw serviceError(domain, "developer.redirect_uri_limit", { limit: maxRedirectUris });
      const violations = redirectUriViolations(uris);
      const [first] = violations;
      if (first) throw serviceErrorWithDetails(domain, "developer.redirect_uri_invalid", first, violations);
      return sql.begin(async (tx) => {
        await lockLiveApp(tx, appId);
        const apps = createAppQueries(tx);
        await apps.replaceRedirectUris(appId, uris, now());
        return apps.redirectUris(appId);
      });
    },
  };
}

/**
 * The app's security settings (require pushed authorization requests, require DPoP): settings rather than facts
 * merchants read, so they change at once, in any state; one not sent is kept.
 */
async function applySecuritySettings(
  apps: ReturnType<typeof createAppQueries>,
  locked: AppRow,
  change: { requirePushedRequests?: boolean; requireDpop?: boolean },
  at: Date,
): Promise<Pick<AppRow, "require_pushed_authorization_requests" | "require_dpop">> {
  const pushed = change.requirePushedRequests ?? locked.require_pushed_authorization_requests;
  const dpop = change.requireDpop ?? locked.require_dpop;
  if (pushed !== locked.require_pushed_authorization_requests)
    await apps.setRequirePushedRequests(locked.id, pushed, at);
  if (dpop !== locked.require_dpop) await apps.setRequireDpop(locked.id, dpop, at);
  return { require_pushed_authorization_requests: pushed, require_dpop: dpop };
}
