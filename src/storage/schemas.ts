// The PostgreSQL schemas: one for the control plane, one per region (the same whether the region has its own
// database or shares the control one).
import type { Region } from "../config/regions.js";

/** The schema of a region's tables. */
export function regionSchema(region: Region): string {
  return `region_${region}`;
}

/** The schema of the control plane (apps, credentials, grants, tokens, the merchant directory). */
export const controlSchema = "control";
