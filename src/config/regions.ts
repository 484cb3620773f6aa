// The regions that hold merchants' business data: a deployment names the ones it serves (config.servedRegions).

/** Every region a merchant can live in; the order is the order migrations run in. */
export const regions = ["uk", "us", "in", "ae"] as const;

export type Region = (typeof regions)[number];

/** Narrows an untrusted string (a token claim, a config value) to a Region. */
export function isRegion(value: unknown): value is Region {
  return typeof value === "string" && (regions as readonly string[]).includes(value);
}
