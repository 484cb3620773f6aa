// The other shape of `bench:tokens`' refreshes: one refresh family on each of `count` merchants, all of one app's
// production client. The demo has two live merchants, so the others are made in bulk SQL as the scale seed makes
// them (bench/support/scale-seed.ts): live provisioned merchants of the region, a production grant of the app to
// each, a family under it and one live refresh token in the service's format (prefix + 256 random bits), stored as
// the service stores it (SHA-256 of the string). Returns the tokens in clear. PostgreSQL only.
import { createHash, randomBytes } from "node:crypto";
import type postgres from "postgres";

/**
 * Company ids of a run's merchants: below the scale seed's (860,000,000 up) and the demo's (900,000,000 up), a block
 * of 1,000 of its own per run (by the time), so a second run on the same database makes new ones.
 */
const firstCompanyOfRun = () => 800_000_000 + (Math.floor(Date.now() / 1000) % 50_000) * 1000;

export async function seedMerchantFamilies(
  sql: postgres.Sql,
  options: { clientId: string; region: string; count: number },
): Promise<string[]> {
  const { count } = options;
  if (count > 1000) throw new Error("at most 1,000 merchant families");
  const firstCompany = firstCompanyOfRun();
  const tokens = Array.from({ length: count }, () => `lp_rt_pk_${randomBytes(32).toString("base64url")}`);
  // In hex: postgres.js sends an array of Buffers as one bytea.
  const hashes = tokens.map((token) => createHash("sha256").update(token, "utf8").digest("hex"));
  await sql.begin(async (tx) => {
    await tx`
      insert into control.merchants (company_id, name, region, provisioned)
      select ${firstCompany}::bigint + k, 'bench merchant ' || k, ${options.region}, true
      from generate_series(0, ${count - 1}::int) k
      on conflict (company_id) do nothing`;
    await tx`
      with app as (select app_id from control.client_credentials where client_id = ${options.clientId}),
      granted as (
        insert into control.grants (app_id, company_id, environment)
        select app.app_id, ${firstCompany}::bigint + k, 'PRODUCTION'
        from app, generate_series(0, ${count - 1}::int) k
        on conflict do nothing
        returning id, app_id, company_id),
      families as (
        insert into control.refresh_families (grant_id, app_id, company_id, client_id)
        select id, app_id, company_id, ${options.clientId} from granted
        returning id, company_id)
      insert into control.refresh_tokens (token_hash, family_id, generation, expires_at)
      select decode(h.hash, 'hex'), families.id, 1, now() + interval '30 days'
      from families
      join unnest(${hashes}::text[]) with ordinality as h (hash, k) on families.company_id = ${firstCompany}::bigint + h.k - 1`;
  });
  const [made] = await sql<Array<{ count: number }>>`
    select count(*)::int as count from control.refresh_tokens where encode(token_hash, 'hex') = any(${hashes}::text[])`;
  if (made!.count !== count)
    throw new Error(`${made!.count} of ${count} merchant families seeded (a run before left grants?)`);
  return tokens;
}
