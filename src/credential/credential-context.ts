// What the CredentialService's section modules share: its dependencies, its error helpers, the
// verification caches (every change to a credential clears them) and the helpers more than one section uses.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type postgres from "postgres";
import { CredentialService, type MerchantSchema } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { createAppQueries, type AppRow } from "./queries/app-queries.js";
import type { MerchantRow } from "./queries/merchant-queries.js";
import type { SandboxGrants } from "./sandbox-grants.js";
import type { VerifiedClient, VerifiedKey } from "./verified.js";
import { serviceError, type ErrorCode, type ParamsOf } from "../errors/index.js";
import type { SqlClient } from "../storage/sql-client.js";
import type { Region } from "../config/regions.js";
import type { ServiceContext } from "../runtime/service-context.js";
import { createTtlCache, type TtlCache } from "../runtime/ttl-cache.js";

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

/** One CredentialService instance's state, built once and handed to every section. */
export interface CredentialContext extends ServiceContext, CredentialServiceDeps {
  now(): Date;
  clientCache: TtlCache<VerifiedClient>;
  keyCache: TtlCache<VerifiedKey>;
  /** This instance changed a credential: drop its own cached answers now (others wait out the bound). */
  forget(): void;
}

/** Spec, "Limits": active sandbox merchants per organization. */
export const sandboxMerchantLimit = 3;

/** Verifications cached at most per cache; bounds memory against floods of distinct valid secrets. */
const verificationCacheEntries = 10_000;

export function createCredentialContext(context: ServiceContext, deps: CredentialServiceDeps): CredentialContext {
  const { clock, config } = context;
  // Successful verifications live at most CREDENTIAL_CACHE_SECONDS (never past the secret's own end), so a
  // revocation made by any instance takes effect everywhere within that bound.
  const cacheOptions = { clock, ttlMs: config.caches.credentialSeconds * 1000, maxEntries: verificationCacheEntries };
  const clientCache = createTtlCache<VerifiedClient>(cacheOptions);
  const keyCache = createTtlCache<VerifiedKey>(cacheOptions);
  return {
    ...context,
    ...deps,
    now: () => new Date(clock.now()),
    clientCache,
    keyCache,
    forget: () => {
      clientCache.clear();
      keyCache.clear();
    },
  };
}

export const domain = CredentialService.typeName;

export const fail = <C extends ErrorCode>(
  code: C,
  ...params: ParamsOf<C> extends Record<string, never> ? [] : [ParamsOf<C>]
) => serviceError(domain, code, params[0] as ParamsOf<C>);

export const invalid = (fields: string) => serviceError(domain, "developer.invalid_request", { fields });

export const parseApiKeyId = (value: string): number | undefined =>
  /^[1-9]\d{0,15}$/.test(value) ? Number(value) : undefined;

/** Locks an app for a change; archived apps take no changes. */
export async function lockLiveApp(tx: SqlClient, appId: string): Promise<AppRow> {
  const app = await createAppQueries(tx).lock(appId);
  if (!app) throw fail("developer.app_not_found");
  if (app.state === "ARCHIVED") throw fail("developer.app_archived");
  return app;
}

export function describeMerchant(row: MerchantRow): MessageInitShape<typeof MerchantSchema> {
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
