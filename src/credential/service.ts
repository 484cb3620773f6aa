// CredentialService: organizations, apps, client credentials, API keys, redirect URIs, IP allowlists and the
// merchant directory. Every rule of issue 4 is enforced here (never in a client); decisions the spec leaves open
// are in docs/decisions.md, "Credentials".
import { createHash } from "node:crypto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type postgres from "postgres";
import {
  AppSchema,
  CredentialService,
  Environment,
  MerchantRole,
  MerchantSchema,
  Product,
  VerifiedAppSchema,
} from "../../gen/partnerapi/v1/credential_service_pb.js";
import { nextAppState, type AppTransition } from "./app-states.js";
import { regionForCountry } from "./countries.js";
import { validateAllowlist } from "./ip-allowlist.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import { maxRedirectUris, redirectUriViolations } from "./redirect-uris.js";
import { seedSandboxMerchant } from "../data/sandbox-data.js";
import {
  clientIdEnvironment,
  clientSecretEnvironment,
  hashesEqual,
  hashSecret,
  newApiKey,
  newClientId,
  newClientSecret,
  newPassword,
  parseApiKey,
  type CredentialEnvironment,
} from "./secrets.js";
import { serviceError, serviceErrorWithDetails, type ErrorCode, type ParamsOf } from "../errors/index.js";
import { createAppQueries, type AppRow } from "./queries/app-queries.js";
import { createCredentialQueries } from "./queries/credential-queries.js";
import { createMerchantQueries, type MerchantRow, type MerchantUserRow } from "./queries/merchant-queries.js";
import { createOrganizationQueries } from "./queries/organization-queries.js";
import type { SandboxGrants } from "./sandbox-grants.js";
import type { SqlClient } from "../storage/sql-client.js";
import { isRegion, type Region } from "../storage/regions.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { createTtlCache } from "../runtime/ttl-cache.js";

/**
 * Live (not revoked) API keys per app, across both environments. Spec: a ceiling exists, its value is ours.
 * Ten covers a key per integration and environment with room to rotate by overlap (create, switch, revoke).
 */
export const apiKeyLimit = 10;

/** Spec, "Limits": active sandbox merchants per organization. */
export const sandboxMerchantLimit = 3;

/** Verifications cached at most per cache; bounds memory against floods of distinct valid secrets. */
const verificationCacheEntries = 10_000;

export interface CredentialServiceDeps {
  /** The control database's client. */
  sql: postgres.Sql;
  /**
   * A region's database client; when given, a new sandbox merchant gets a small data set there (a store, some
   * categories and items) and is marked provisioned. Without it, provisioning stays false.
   */
  regionSql?: (region: Region) => postgres.Sql | undefined;
  /** The automatic sandbox grants (the grant owner's rows), written inside this service's transactions. */
  sandboxGrants: SandboxGrants;
}

type VerifiedAppInit = MessageInitShape<typeof VerifiedAppSchema>;

const products: Record<AppRow["product"], Product> = {
  FULL: Product.FULL,
  ONLINE_ORDER: Product.ONLINE_ORDER,
  ADSR: Product.ADSR,
};
const productNames = new Map<Product, AppRow["product"]>(Object.entries(products).map(([name, value]) => [value, name as AppRow["product"]]));
const environments: Record<CredentialEnvironment, Environment> = {
  SANDBOX: Environment.SANDBOX,
  PRODUCTION: Environment.PRODUCTION,
};
const roles: Record<MerchantUserRow["role"], MerchantRole> = { OWNER: MerchantRole.OWNER, EMPLOYEE: MerchantRole.EMPLOYEE };

/** A plausible email: something@something.tld, no spaces; the sign-in flow checks the rest. */
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Builds the CredentialService over the control database. */
export function createCredentialService(context: ServiceContext, deps: CredentialServiceDeps): ServiceImpl<typeof CredentialService> {
  const { clock, ids, config, logger } = context;
  const { sql } = deps;
  const domain = CredentialService.typeName;
  const fail = <C extends ErrorCode>(code: C, ...params: ParamsOf<C> extends Record<string, never> ? [] : [ParamsOf<C>]) =>
    serviceError(domain, code, params[0] as ParamsOf<C>);
  const invalid = (fields: string) => serviceError(domain, "developer.invalid_request", { fields });
  const now = () => new Date(clock.now());
  // Successful verifications live at most CREDENTIAL_CACHE_SECONDS (never past the secret's own end), so a
  // revocation made by any instance takes effect everywhere within that bound.
  const cacheOptions = { clock, ttlMs: config.CREDENTIAL_CACHE_SECONDS * 1000, maxEntries: verificationCacheEntries };
  const clientCache = createTtlCache<VerifiedAppInit>(cacheOptions);
  const keyCache = createTtlCache<{ app: VerifiedAppInit; apiKeyId: string }>(cacheOptions);
  /** This instance changed a credential: drop its own cached answers now (others wait out the bound). */
  const forget = () => {
    clientCache.clear();
    keyCache.clear();
  };
  /** A hash of what was presented: the cache key, so the cache never holds a secret in clear. */
  const cacheKey = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("base64url");

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
      product: products[app.product],
      state: app.state,
      redirectUris: await apps.redirectUris(app.id),
      credentials: await Promise.all(
        clients.map(async (client) => ({
          clientId: client.client_id,
          environment: environments[client.environment],
          allowedIps: await credentials.allowlist({ clientId: client.client_id }),
        })),
      ),
      apiKeys: await Promise.all(
        keys.map(async (key) => ({
          apiKeyId: String(key.id),
          name: key.name,
          environment: environments[key.environment],
          revoked: key.revoked_at !== null,
          allowedIps: await credentials.allowlist({ apiKeyId: key.id }),
        })),
      ),
    };
  }

  function describeMerchant(row: MerchantRow): MessageInitShape<typeof MerchantSchema> {
    return {
      companyId: BigInt(row.company_id),
      name: row.name,
      region: row.region,
      demo: row.demo,
      active: row.active,
      provisioned: row.provisioned,
      sandboxOrganizationId: BigInt(row.sandbox_organization_id ?? 0),
      country: row.country ?? "",
    };
  }

  /** Issues a client id and its first secret inside the caller's transaction; the secret is returned once. */
  async function issueClient(tx: SqlClient, appId: string, environment: CredentialEnvironment) {
    const clientId = newClientId(ids, environment);
    const clientSecret = newClientSecret(ids, environment);
    const credentials = createCredentialQueries(tx);
    await credentials.insertClient(clientId, appId, environment, now());
    await credentials.insertSecret(clientId, hashSecret(clientSecret), now());
    return { clientId, environment: environments[environment], clientSecret, allowedIps: [] };
  }

  /** Locks an app for a change; archived apps take no changes. */
  async function lockLiveApp(tx: SqlClient, appId: string): Promise<AppRow> {
    const app = await createAppQueries(tx).lock(appId);
    if (!app) throw fail("developer.app_not_found");
    if (app.state === "ARCHIVED") throw fail("developer.app_archived");
    return app;
  }

  /** Runs a review transition under the app's row lock. */
  async function transition(appId: string, action: AppTransition, also?: (tx: SqlClient, app: AppRow) => Promise<void>) {
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

  const roleName = (role: MerchantRole): MerchantUserRow["role"] | undefined =>
    role === MerchantRole.OWNER ? "OWNER" : role === MerchantRole.EMPLOYEE ? "EMPLOYEE" : undefined;

  const environmentName = (environment: Environment): CredentialEnvironment | undefined =>
    environment === Environment.SANDBOX ? "SANDBOX" : environment === Environment.PRODUCTION ? "PRODUCTION" : undefined;

  const parseApiKeyId = (value: string): number | undefined => (/^[1-9]\d{0,15}$/.test(value) ? Number(value) : undefined);

  return {
    async verifyClientCredentials(request) {
      const { clientId, clientSecret } = request;
      const environment = clientIdEnvironment(clientId);
      // A secret of the other environment can never match; refuse it before touching the database.
      if (!environment || clientSecretEnvironment(clientSecret) !== environment) throw fail("developer.invalid_client");
      const key = cacheKey(clientId, clientSecret);
      const cached = clientCache.peek(key);
      if (cached) return { app: await cached, clientId };
      const credentials = createCredentialQueries(sql);
      const client = await credentials.findClient(clientId);
      const presented = hashSecret(clientSecret);
      const secrets = client && client.environment === environment ? await credentials.workingSecrets(clientId, now()) : [];
      // Compare against every working secret (at most two) without stopping early.
      let matched: (typeof secrets)[number] | undefined;
      for (const secret of secrets) if (hashesEqual(presented, secret.secret_hash)) matched = secret;
      if (!client || !matched) throw fail("developer.invalid_client");
      const app: VerifiedAppInit = {
        appId: client.app_id,
        organizationId: BigInt(client.organization_id),
        product: products[client.product],
        environment: environments[environment],
        appState: client.state,
        allowedIps: await credentials.allowlist({ clientId }),
      };
      clientCache.set(key, app, matched.expires_at?.getTime());
      return { app, clientId };
    },

    async verifyApiKey(request) {
      const parsed = parseApiKey(request.apiKey);
      if (!parsed) throw fail("partner.api_key_invalid");
      const key = cacheKey(request.apiKey);
      const cached = keyCache.peek(key);
      if (cached) return cached;
      const credentials = createCredentialQueries(sql);
      const row = await credentials.findApiKeyByLookup(parsed.lookupId);
      const matches = row !== undefined && hashesEqual(hashSecret(parsed.secret), row.key_hash);
      // An archived app's keys stop at once: there is no partner-side "archived" code, a dead key is invalid.
      if (!row || !matches || row.environment !== parsed.environment || row.state === "ARCHIVED") {
        throw fail("partner.api_key_invalid");
      }
      const answer = {
        app: {
          appId: row.app_id,
          organizationId: BigInt(row.organization_id),
          product: products[row.product],
          environment: environments[row.environment],
          appState: row.state,
          allowedIps: await credentials.allowlist({ apiKeyId: row.id }),
        },
        apiKeyId: String(row.id),
      };
      keyCache.set(key, answer);
      return answer;
    },

    async createOrganization(request) {
      const name = request.name.trim();
      if (!name) throw invalid("name");
      const row = await createOrganizationQueries(sql).insert(name, now());
      return { organization: { organizationId: BigInt(row.id), name: row.name } };
    },

    async createApp(request) {
      const name = request.name.trim();
      const product = productNames.get(request.product);
      if (!name || !product) throw invalid([!name && "name", !product && "product"].filter(Boolean).join(", "));
      return sql.begin(async (tx) => {
        const organization = await createOrganizationQueries(tx).find(Number(request.organizationId));
        if (!organization) throw fail("developer.organization_not_found");
        const app = await createAppQueries(tx).insert(
          { id: `app_${ids.randomToken(12)}`, organization_id: organization.id, name, product },
          now(),
        );
        const sandbox = await issueClient(tx, app.id, "SANDBOX");
        await deps.sandboxGrants.grantMerchantsToApp(tx, app.id, organization.id, now());
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
      return sql.begin(async (tx) => {
        const app = await lockLiveApp(tx, request.appId);
        if (request.product !== undefined && request.product !== products[app.product]) {
          throw fail("developer.product_immutable");
        }
        const name = request.name.trim();
        if (name && name !== app.name) await createAppQueries(tx).rename(app.id, name, now());
        return { app: await describeApp(tx, { ...app, name: name || app.name }) };
      });
    },

    async submitApp(request) {
      return { app: (await transition(request.appId, "submit")).describe };
    },

    async approveApp(request) {
      let production: Awaited<ReturnType<typeof issueClient>> | undefined;
      const result = await transition(request.appId, "approve", async (tx, app) => {
        // The production pair is issued once, at the first approval; the app never goes back to review after.
        const live = await createCredentialQueries(tx).liveClients(app.id);
        if (!live.some((client) => client.environment === "PRODUCTION")) production = await issueClient(tx, app.id, "PRODUCTION");
      });
      logger.info("app approved", { appId: request.appId });
      return { app: (production ? await describeApp(sql, result.app) : result.describe), production };
    },

    async rejectApp(request) {
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
      if (uris.length > maxRedirectUris) throw serviceError(domain, "developer.redirect_uri_limit", { limit: maxRedirectUris });
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

    async rotateClientSecret(request) {
      const result = await sql.begin(async (tx) => {
        const credentials = createCredentialQueries(tx);
        // The credential's row lock serialises rotations: two at once leave at most two working secrets.
        const client = await credentials.findClient(request.clientId, { lock: true });
        if (!client) throw fail("developer.credential_not_found");
        if (client.state === "ARCHIVED") throw fail("developer.app_archived");
        const at = now();
        const overlapEnd = new Date(at.getTime() + config.SECRET_ROTATION_OVERLAP_SECONDS * 1000);
        const hadCurrent = (await credentials.workingSecrets(client.client_id, at)).some((secret) => secret.expires_at === null);
        await credentials.startOverlap(client.client_id, at, overlapEnd);
        const clientSecret = newClientSecret(ids, client.environment);
        await credentials.insertSecret(client.client_id, hashSecret(clientSecret), at);
        return { clientId: client.client_id, clientSecret, previousSecretExpiresAtMs: BigInt(hadCurrent ? overlapEnd.getTime() : 0) };
      });
      forget();
      logger.info("client secret rotated", { clientId: result.clientId });
      return result;
    },

    async revealProductionSecret(request) {
      const production = await sql.begin(async (tx) => {
        const app = await lockLiveApp(tx, request.appId);
        if (app.state !== "APPROVED") throw fail("developer.app_not_approved");
        const credentials = createCredentialQueries(tx);
        const live = (await credentials.liveClients(app.id)).find((client) => client.environment === "PRODUCTION");
        // The client's row lock orders this after any rotation running now; the secret issued at approval being its
        // only secret ever means nobody in the organization has seen a production secret of it yet.
        const client = live && (await credentials.findClient(live.client_id, { lock: true }));
        if (!client) throw fail("developer.credential_not_found");
        if ((await credentials.countSecrets(client.client_id)) !== 1) throw fail("developer.production_credentials_already_shown");
        const at = now();
        await credentials.revokeSecrets(client.client_id, at);
        const clientSecret = newClientSecret(ids, "PRODUCTION");
        await credentials.insertSecret(client.client_id, hashSecret(clientSecret), at);
        return {
          clientId: client.client_id,
          environment: environments.PRODUCTION,
          clientSecret,
          allowedIps: await credentials.allowlist({ clientId: client.client_id }),
        };
      });
      forget();
      logger.info("production secret revealed", { appId: request.appId, clientId: production.clientId });
      return { production };
    },

    async revokeClientCredential(request) {
      const revoked = await sql.begin((tx) => createCredentialQueries(tx).revokeClient(request.clientId, now()));
      if (!revoked) throw fail("developer.credential_not_found");
      forget();
      logger.info("client credential revoked", { clientId: request.clientId });
      return { revoked };
    },

    async setIpAllowlist(request) {
      const apiKeyId = request.apiKeyId ? parseApiKeyId(request.apiKeyId) : undefined;
      if (Boolean(request.clientId) === Boolean(request.apiKeyId)) throw invalid("client_id, api_key_id (exactly one)");
      const checked = validateAllowlist(request.allowedIps);
      if (!checked.ok) throw serviceError(domain, "developer.ip_allowlist_invalid", { field: checked.field, value: checked.value });
      const allowedIps = await sql.begin(async (tx) => {
        const credentials = createCredentialQueries(tx);
        let target: { clientId: string } | { apiKeyId: number };
        if (request.clientId) {
          const client = await credentials.findClient(request.clientId, { lock: true });
          if (!client) throw fail("developer.credential_not_found");
          if (client.state === "ARCHIVED") throw fail("developer.app_archived");
          target = { clientId: client.client_id };
        } else {
          const key = apiKeyId === undefined ? undefined : await credentials.findApiKey(apiKeyId);
          if (!key || key.revoked_at) throw fail("developer.api_key_not_found");
          await lockLiveApp(tx, key.app_id);
          target = { apiKeyId: key.id };
        }
        await credentials.replaceAllowlist(target, checked.entries, now());
        return credentials.allowlist(target);
      });
      forget();
      return { allowedIps };
    },

    async createApiKey(request) {
      const name = request.name.trim();
      const environment = environmentName(request.environment);
      if (!name || !environment) throw invalid([!name && "name", !environment && "environment"].filter(Boolean).join(", "));
      return sql.begin(async (tx) => {
        // The app's row lock serialises key creation, so parallel calls cannot pass the ceiling together.
        const app = await lockLiveApp(tx, request.appId);
        if (app.product !== "ADSR") throw invalid("app_id (API keys exist for ADSR apps only)");
        if (environment === "PRODUCTION" && app.state !== "APPROVED") throw fail("developer.app_not_approved");
        const credentials = createCredentialQueries(tx);
        if ((await credentials.countLiveApiKeys(app.id)) >= apiKeyLimit) {
          throw serviceError(domain, "developer.api_key_limit", { limit: apiKeyLimit });
        }
        const made = newApiKey(ids, environment);
        const id = await credentials.insertApiKey({ appId: app.id, environment, name, lookupId: made.lookupId, hash: made.hash }, now());
        logger.info("api key created", { appId: app.id, apiKeyId: id, environment });
        return {
          apiKey: { apiKeyId: String(id), name, environment: environments[environment], apiKey: made.key, revoked: false, allowedIps: [] },
        };
      });
    },

    async revokeApiKey(request) {
      const id = parseApiKeyId(request.apiKeyId);
      const revoked = id !== undefined && (await createCredentialQueries(sql).revokeApiKey(id, now()));
      if (!revoked) throw fail("developer.api_key_not_found");
      forget();
      logger.info("api key revoked", { apiKeyId: id });
      return { revoked };
    },

    async createMerchant(request) {
      const name = request.name.trim();
      if (!name || !isRegion(request.region)) throw invalid([!name && "name", !isRegion(request.region) && "region"].filter(Boolean).join(", "));
      const row = await createMerchantQueries(sql)
        .insert({ companyId: Number(request.companyId) || undefined, name, region: request.region, demo: false }, now())
        .catch((error: { constraint_name?: string }) => {
          throw error.constraint_name === "merchants__company_id__pkey" ? invalid("company_id (already exists)") : error;
        });
      return { merchant: describeMerchant(row) };
    },

    async getMerchant(request) {
      const row = await createMerchantQueries(sql).find(Number(request.companyId));
      if (!row) throw fail("developer.merchant_not_found");
      return { merchant: describeMerchant(row) };
    },

    async updateMerchantStatus(request) {
      const row = await sql.begin(async (tx) => {
        const merchants = createMerchantQueries(tx);
        const current = await merchants.find(Number(request.companyId));
        if (!current) throw fail("developer.merchant_not_found");
        // Reactivating a sandbox merchant counts against the organization's limit like provisioning does.
        if (request.active && !current.active && current.sandbox_organization_id !== null) {
          await createOrganizationQueries(tx).lock(current.sandbox_organization_id);
          if ((await merchants.countActiveSandbox(current.sandbox_organization_id)) >= sandboxMerchantLimit) {
            throw fail("developer.sandbox_limit");
          }
        }
        return merchants.updateStatus(Number(request.companyId), { active: request.active, provisioned: request.provisioned });
      });
      return { merchant: describeMerchant(row!) };
    },

    async createMerchantUser(request) {
      const email = request.email.trim().toLowerCase();
      const role = roleName(request.role);
      if (!emailPattern.test(email) || !role) throw invalid([!emailPattern.test(email) && "email", !role && "role"].filter(Boolean).join(", "));
      const password = newPassword(ids);
      const passwordHash = await hashPassword(password);
      const user = await sql.begin(async (tx) => {
        const merchant = await createMerchantQueries(tx).find(Number(request.companyId));
        if (!merchant) throw fail("developer.merchant_not_found");
        return createMerchantQueries(tx)
          .insertUser({ companyId: merchant.company_id, email, passwordHash, role }, now())
          .catch((error: { constraint_name?: string }) => {
            throw error.constraint_name === "merchant_users__email__key" ? fail("developer.merchant_user_invalid") : error;
          });
      });
      return { user: { userId: String(user.id), companyId: BigInt(user.company_id), email, role: roles[role], password } };
    },

    async verifyMerchantUser(request) {
      const user = await createMerchantQueries(sql).findUserByEmail(request.email.trim().toLowerCase());
      // Unknown email and wrong password answer alike, and both cost one scrypt.
      const ok = await verifyPassword(request.password, user?.password_hash ?? unknownUserHash);
      if (!user || !ok) throw fail("developer.merchant_user_invalid");
      return { user: { userId: String(user.id), companyId: BigInt(user.company_id), email: user.email, role: roles[user.role] } };
    },

    async provisionSandboxMerchant(request) {
      const placed = regionForCountry(request.country, config.SANDBOX_DEFAULT_REGION);
      if (!placed) throw fail("developer.sandbox_country_unknown");
      // The scrypt hash is made before the transaction, so the organization's lock is held for milliseconds.
      const password = newPassword(ids);
      const passwordHash = await hashPassword(password);
      const { merchant, owner } = await sql.begin(async (tx) => {
        // The organization's row lock serialises provisioning: ten parallel calls leave exactly three active.
        const organization = await createOrganizationQueries(tx).lock(Number(request.organizationId));
        if (!organization) throw fail("developer.organization_not_found");
        const merchants = createMerchantQueries(tx);
        if ((await merchants.countActiveSandbox(organization.id)) >= sandboxMerchantLimit) throw fail("developer.sandbox_limit");
        const name = request.name.trim() || `${organization.name} sandbox ${placed.country} ${ids.randomToken(3)}`;
        const row = await merchants.insert(
          { name, region: placed.region, demo: true, sandboxOrganizationId: organization.id, country: placed.country },
          now(),
        );
        const email = `owner.${row.company_id}@sandbox.partner-api.test`;
        const user = await merchants.insertUser({ companyId: row.company_id, email, passwordHash, role: "OWNER" }, now());
        await deps.sandboxGrants.grantAppsToMerchant(tx, row.company_id, organization.id, now());
        return { merchant: row, owner: user };
      });
      let described = merchant;
      const regional = deps.regionSql?.(merchant.region);
      if (regional) {
        await seedSandboxMerchant(regional, merchant.region, merchant.company_id);
        described = (await createMerchantQueries(sql).updateStatus(merchant.company_id, { provisioned: true })) ?? merchant;
      }
      logger.info("sandbox merchant provisioned", { companyId: merchant.company_id, organizationId: Number(request.organizationId), region: merchant.region });
      return {
        merchant: describeMerchant(described),
        owner: { userId: String(owner.id), companyId: BigInt(owner.company_id), email: owner.email, role: MerchantRole.OWNER, password },
      };
    },

    async listSandboxMerchants(request) {
      const rows = await createMerchantQueries(sql).listSandbox(Number(request.organizationId));
      return { merchants: rows.map(describeMerchant) };
    },
  };
}

/** A well-formed hash no password produces, so an unknown email costs the same scrypt as a wrong password. */
const unknownUserHash = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
