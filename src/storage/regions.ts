// The regions that hold merchants' business data, and the Postgres schema each one's tables live in.

/** Every region a merchant can live in; the order is the order migrations run in. */
export const regions = ["uk", "us", "in", "ae"] as const;

export type Region = (typeof regions)[number];

/** The schema of a region's tables, the same whether the region has its own database or shares one. */
export function regionSchema(region: Region): string {
  return `region_${region}`;
}

/** The schema of the control plane (apps, credentials, grants, tokens, the merchant directory). */
export const controlSchema = "control";

/** Narrows an untrusted string (a token claim, a config value) to a Region. */
export function isRegion(value: unknown): value is Region {
  return typeof value === "string" && (regions as readonly string[]).includes(value);
}
