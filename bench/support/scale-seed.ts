// Seeding at scale, in bulk SQL (generate_series: one statement per table, no round trip per row): items of many
// companies in a region, and apps with organizations, client credentials and a secret each in the control plane.
// The rows are real rows of the real tables; only their names and hashes are synthetic (no secret matches them).
import type postgres from "postgres";
import { regionSchema } from "../../src/storage/schemas.js";
import type { Region } from "../../src/config/regions.js";

/** Company ids of the seeded items: far from the demo's and the tests'. */
const firstCompany = 860_000_000;

/**
 * `count` items in `region`: `companies` other companies share them, and `ownShare` of them go to `companyId`
 * (the measured merchant), so its own list grows too.
 */
export async function seedItems(sql: postgres.Sql, region: Region, options: { count: number; companies: number; companyId: number; ownShare: number }): Promise<void> {
  const items = sql(`${regionSchema(region)}.items`);
  const own = Math.floor(options.count * options.ownShare);
  const batch = 100_000;
  for (let from = 1; from <= options.count; from += batch) {
    const to = Math.min(options.count, from + batch - 1);
    await sql`
      insert into ${items} (company_id, name, code, price_minor, currency)
      select case when g <= ${own} then ${options.companyId}::bigint else ${firstCompany}::bigint + (g % ${options.companies}) end,
             'scale item ' || g, 'scale-' || g, g % 100000, 'GBP'
      from generate_series(${from}::bigint, ${to}::bigint) g`;
  }
  await sql`analyze ${items}`;
}

/** `count` approved FULL apps, ten per organization, each with a sandbox client id and one (unusable) secret hash. */
export async function seedApps(sql: postgres.Sql, count: number): Promise<void> {
  const tag = `scale-${Date.now().toString(36)}`;
  const batch = 20_000;
  for (let from = 0; from < count; from += batch) {
    const to = Math.min(count, from + batch) - 1;
    await sql.begin(async (tx) => {
      const organizations = await tx<Array<{ id: number }>>`
        insert into control.organizations (name)
        select ${tag} || ' org ' || g from generate_series(${from / 10}::int, ${Math.floor(to / 10)}::int) g
        returning id`;
      const orgIds = organizations.map((row) => Number(row.id));
      await tx`
        insert into control.apps (id, organization_id, name, product, state)
        select ${tag} || '-app-' || g, (${orgIds}::bigint[])[1 + (g - ${from}) / 10], 'scale app ' || g, 'FULL', 'APPROVED'
        from generate_series(${from}::int, ${to}::int) g`;
      await tx`
        insert into control.client_credentials (client_id, app_id, environment)
        select 'lp_app_sb' || ${tag} || g, ${tag} || '-app-' || g, 'SANDBOX'
        from generate_series(${from}::int, ${to}::int) g`;
      await tx`
        insert into control.client_secrets (client_id, secret_hash)
        select 'lp_app_sb' || ${tag} || g, sha256(convert_to(${tag} || g, 'UTF8'))
        from generate_series(${from}::int, ${to}::int) g`;
    });
  }
  for (const table of ["organizations", "apps", "client_credentials", "client_secrets"]) await sql`analyze ${sql(`control.${table}`)}`;
}
