// Seeding at scale, in bulk SQL: every table is filled by a few INSERT ... SELECT over generate_series (no round
// trip per row), batch by batch, each batch one transaction. Targets are totals: seeding to N tops a database up to
// N (what the demo or an earlier seeding made counts), so one function makes both sides of the scale benchmark.
//
// The rows are real rows of the real tables, made to the service's own formats: merchants of the directory (the
// companies that own the seeded items), approved FULL apps with a sandbox and a production client id, a secret for
// each, a production grant to one of those merchants, and a refresh family with one live refresh token under it.
// Secrets and tokens are the service's formats (prefix + 43 base64url characters of 256 bits) and are stored as
// the service stores them, SHA-256 of the string (src/credential/secrets.ts hashSecret); each row's hash is its own
// computation, done by PostgreSQL's sha256(). Their 256 bits come from SHA-256 of a fresh random 32-byte seed and
// the row's number instead of from randomBytes per row: unpredictable without the seed, which is never stored.
// `seedApps` hands back one app's clear secret and refresh token, so the benchmark can prove them real (a refresh
// at the running service answers 200).
import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { regionSchema } from "../../src/storage/schemas.js";
import type { Region } from "../../src/config/regions.js";

/** Company ids of the seeded merchants and items: far from the demo's (900,000,000 up) and the tests'. */
const firstCompany = 860_000_000;

/** `companies` merchants (company ids firstCompany...), live and provisioned in `region`; existing ones are kept. */
export async function seedMerchants(sql: postgres.Sql, region: Region, companies: number): Promise<void> {
  await sql`
    insert into control.merchants (company_id, name, region, provisioned)
    select ${firstCompany}::bigint + k, 'scale merchant ' || k, ${region}, true
    from generate_series(0, ${companies - 1}::int) k
    on conflict (company_id) do nothing`;
  await sql`analyze control.merchants`;
}

/**
 * Tops the items of `region` up to `total`: of the items added, `ownShare` go to `companyId` (the measured
 * merchant, so its own list grows too) and the rest are spread over the `companies` seeded merchants.
 * Returns how many were added.
 */
export async function seedItems(
  sql: postgres.Sql,
  region: Region,
  options: { total: number; companies: number; companyId: number; ownShare: number },
): Promise<number> {
  const items = sql(`${regionSchema(region)}.items`);
  const [existing] = await sql<Array<{ count: number }>>`select count(*)::int as count from ${items}`;
  const count = Math.max(0, options.total - existing!.count);
  const own = Math.floor(count * options.ownShare);
  const tag = Date.now().toString(36);
  const batch = 100_000;
  for (let from = 1; from <= count; from += batch) {
    const to = Math.min(count, from + batch - 1);
    await sql`
      insert into ${items} (company_id, name, code, price_minor, currency)
      select case when g <= ${own} then ${options.companyId}::bigint else ${firstCompany}::bigint + (g % ${options.companies}) end,
             'scale item ' || g, 'scale-' || ${tag} || '-' || g, g % 100000, 'GBP'
      from generate_series(${from}::bigint, ${to}::bigint) g`;
  }
  await sql`analyze ${items}`;
  return count;
}

/** One seeded app's production credentials and live refresh token, in clear (the benchmark's proof they work). */
export interface SeededSample {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

/**
 * Tops control.apps up to `total` approved FULL apps (ten per organization), each with its credentials, a grant to
 * one of the `companies` seeded merchants (seedMerchants first) and a refresh family; returns how many were added
 * and, when any was, one app's clear credentials.
 */
export async function seedApps(
  sql: postgres.Sql,
  options: { total: number; companies: number },
): Promise<{ added: number; sample?: SeededSample }> {
  const [existing] = await sql<Array<{ count: number }>>`select count(*)::int as count from control.apps`;
  const count = Math.max(0, options.total - existing!.count);
  const seed = randomBytes(32);
  const tag = `scale-${Date.now().toString(36)}`;
  let sample: SeededSample | undefined;
  const batch = 20_000;
  for (let from = 0; from < count; from += batch) {
    const to = Math.min(count, from + batch) - 1;
    sample = await sql.begin(async (tx) => {
      /** 256 bits for row g and purpose `what`, SHA-256(seed || what || g), in base64url as randomToken writes them. */
      const bits = (what: string) =>
        tx`rtrim(translate(encode(sha256(${seed}::bytea || convert_to(${what} || g, 'UTF8')), 'base64'), '+/', '-_'), '=')`;
      // The batch's values, made once: ids as the service makes them (app_ + 12 random bytes, lp_app_sb/pk + 18).
      await tx`
        create temporary table scale_batch on commit drop as
        select g,
               ${tag} || ' org ' || (g / 10) as organization_name,
               'app_' || left(${bits("app")}, 16) as app_id,
               'lp_app_sb' || left(${bits("client sb")}, 24) as sandbox_client,
               'lp_app_pk' || left(${bits("client pk")}, 24) as production_client,
               'lp_sk_sb_' || ${bits("secret sb")} as sandbox_secret,
               'lp_sk_pk_' || ${bits("secret pk")} as production_secret,
               'lp_rt_pk_' || ${bits("refresh")} as refresh_token,
               ${firstCompany}::bigint + (g % ${options.companies}) as company_id
        from generate_series(${from}::int, ${to}::int) g`;
      await tx`insert into control.organizations (name) select distinct organization_name from scale_batch`;
      await tx`
        insert into control.apps (id, organization_id, name, product, state)
        select b.app_id, o.id, 'scale app ' || b.g, 'FULL', 'APPROVED'
        from scale_batch b join control.organizations o on o.name = b.organization_name`;
      await tx`
        insert into control.client_credentials (client_id, app_id, environment)
        select sandbox_client, app_id, 'SANDBOX' from scale_batch
        union all select production_client, app_id, 'PRODUCTION' from scale_batch`;
      await tx`
        insert into control.client_secrets (client_id, secret_hash)
        select sandbox_client, sha256(convert_to(sandbox_secret, 'UTF8')) from scale_batch
        union all select production_client, sha256(convert_to(production_secret, 'UTF8')) from scale_batch`;
      await tx`
        with granted as (
          insert into control.grants (app_id, company_id, environment)
          select app_id, company_id, 'PRODUCTION' from scale_batch
          returning id, app_id, company_id),
        families as (
          insert into control.refresh_families (grant_id, app_id, company_id, client_id)
          select granted.id, granted.app_id, granted.company_id, b.production_client
          from granted join scale_batch b on b.app_id = granted.app_id
          returning id, app_id)
        insert into control.refresh_tokens (token_hash, family_id, generation, expires_at)
        select sha256(convert_to(b.refresh_token, 'UTF8')), families.id, 1, now() + interval '30 days'
        from families join scale_batch b on b.app_id = families.app_id`;
      const [row] = await tx<Array<{ production_client: string; production_secret: string; refresh_token: string }>>`
        select production_client, production_secret, refresh_token from scale_batch order by g desc limit 1`;
      return {
        clientId: row!.production_client,
        clientSecret: row!.production_secret,
        refreshToken: row!.refresh_token,
      };
    });
  }
  for (const table of [
    "organizations",
    "apps",
    "client_credentials",
    "client_secrets",
    "grants",
    "refresh_families",
    "refresh_tokens",
  ]) {
    await sql`analyze ${sql(`control.${table}`)}`;
  }
  return { added: count, ...(sample ? { sample } : {}) };
}
