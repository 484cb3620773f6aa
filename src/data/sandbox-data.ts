// The starting business data of a merchant: stores, an employee, categories, items, online orders in several states
// and ninety days of sales. Deterministic from the company id, so reruns match. The demo's live merchants and every
// sandbox merchant (the demo's, and those provisioned from the console) get the same richness (issue 18): a partner
// can try orders and reports in the sandbox without a live merchant.
import type { Region } from "../config/regions.js";
import type postgres from "postgres";
import {
  createRegionSeedQueries,
  type SeedItem,
  type SeedOrder,
  type SeedSale,
} from "./queries/region-seed-queries.js";
import { seededGroupsOf, seededMenu, seededSoldOutModifier } from "./seed-menu.js";
import { seedStores } from "./seed-stores.js";

/** The currency of each region's merchants. */
export const regionCurrency: Readonly<Record<Region, string>> = { uk: "GBP", us: "USD", in: "INR", ae: "AED" };

const categoryNames = [
  "Coffee",
  "Tea",
  "Bakery",
  "Sandwiches",
  "Salads",
  "Soft drinks",
  "Snacks",
  "Desserts",
  "Breakfast",
  "Merchandise",
];
const adjectives = ["Classic", "Large", "Small", "Iced", "Spiced", "Vegan", "Double", "House", "Seasonal", "Organic"];

/** A small deterministic pseudo-random sequence (mulberry32): demo data without Math.random. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** ONLINE_ORDER_DECISION_SECONDS's default, for a seed given no setting (the tests' merchants). */
const defaultDecisionSeconds = 900;

/** The states seeded online orders cycle through (the order route returns `status` as stored). */
export const seededOrderStates = ["PENDING", "ACCEPTED", "READY", "COMPLETED", "CANCELLED"] as const;

export interface SeedOptions {
  storeCount: number;
  itemCount: number;
  /** Days of sales history ending at `now`; 0 for none. */
  salesDays: number;
  onlineOrderCount: number;
  now: Date;
  /**
   * ONLINE_ORDER_DECISION_SECONDS as configured (default 900, the setting's): a seeded PENDING order follows the
   * API guide's table like a placed one, with decideBy this long after it was placed.
   */
  decisionSeconds?: number;
  employee?: { name: string; email: string };
  /** The demo's and the sandbox's: items with modifier groups and one modifier sold out in store 2 (./seed-menu.ts). */
  menu?: boolean;
  /** A sandbox merchant's: its second store takes turns of the menu autopilot (SANDBOX_MENU_AUTOPILOT_SECONDS). */
  menuAutopilot?: boolean;
}

/**
 * Writes a merchant's starting data unless it has stores already (idempotent); returns its store ids.
 * Runs in one transaction of the region's database.
 */
export async function seedMerchantData(
  sql: postgres.Sql,
  region: Region,
  companyId: number,
  options: SeedOptions,
): Promise<number[]> {
  return sql.begin(async (tx) => {
    const seed = createRegionSeedQueries(tx, region);
    const existing = await seed.storeIds(companyId);
    if (existing.length > 0) return existing;
    const random = sequence(companyId);
    const currency = regionCurrency[region];
    const storeIds = await seed.insertStores(
      companyId,
      seedStores(region, options.storeCount, options.now),
      options.now,
    );
    const [employeeId] = await seed.insertEmployees(
      companyId,
      [options.employee ?? { name: "Owner", email: null }],
      options.now,
    );
    const categoryIds = await seed.insertCategories(
      companyId,
      categoryNames.map((name, index) => ({ name, code: `CAT${String(index + 1).padStart(2, "0")}` })),
      options.now,
    );
    const items: SeedItem[] = Array.from({ length: options.itemCount }, (_, index) => {
      const category = index % categoryNames.length;
      return {
        categoryId: categoryIds[category] ?? null,
        name: `${adjectives[Math.floor(index / categoryNames.length) % adjectives.length]} ${categoryNames[category]} ${index + 1}`,
        code: `ITEM${String(index + 1).padStart(4, "0")}`,
        barcode: `${companyId}${String(index + 1).padStart(5, "0")}`,
        priceMinor: 100 + Math.floor(random() * 2000),
        currency,
      };
    });
    const itemIds = await seed.insertItems(companyId, items, employeeId ?? null, options.now);
    // One item sold out in one store (issue 39): the menu of store 2 shows the third item unavailable.
    if (storeIds.length > 1 && itemIds.length > 2)
      await seed.insertSoldOut(companyId, [{ storeId: storeIds[1]!, itemId: itemIds[2]! }], options.now);
    if (options.menu) await seedModifiers(seed, companyId, storeIds, itemIds, options.now);
    if (options.menuAutopilot && storeIds.length > 1)
      await seed.startMenuAutopilot(companyId, storeIds[1]!, options.now);
    const day = 86_400_000;
    const decisionMs = (options.decisionSeconds ?? defaultDecisionSeconds) * 1000;
    const orders: SeedOrder[] = Array.from({ length: options.onlineOrderCount }, (_, index) => {
      const quantity = 1 + Math.floor(random() * 3);
      const item = items[Math.floor(random() * items.length)]!;
      const status = seededOrderStates[index % seededOrderStates.length]!;
      // A PENDING order is one placed within its decision window (older ones would have timed out): placed in the
      // window's first two thirds before `now`, so the merchant has at least a third of it left to decide.
      const age = status === "PENDING" ? Math.floor((random() * 2 * decisionMs) / 3) : Math.floor(random() * 14 * day);
      const placedAt = new Date(options.now.getTime() - age);
      return {
        storeId: storeIds[index % storeIds.length]!,
        status,
        totalMinor: item.priceMinor * quantity,
        currency,
        placedAt,
        decideBy: status === "PENDING" ? new Date(placedAt.getTime() + decisionMs) : null,
        lines: [{ itemCode: item.code, name: item.name, quantity, priceMinor: item.priceMinor }],
      };
    });
    await seed.insertOnlineOrders(companyId, orders);
    const sales: SeedSale[] = [];
    for (let daysAgo = options.salesDays; daysAgo >= 1; daysAgo--) {
      for (const storeId of storeIds) {
        const count = 3 + Math.floor(random() * 5);
        for (let n = 0; n < count; n++) {
          const itemCount = 1 + Math.floor(random() * 4);
          sales.push({
            storeId,
            soldAt: new Date(options.now.getTime() - daysAgo * day + Math.floor(random() * day)),
            totalMinor: itemCount * (150 + Math.floor(random() * 1500)),
            itemCount,
          });
        }
      }
    }
    await seed.insertSales(companyId, sales);
    return storeIds;
  });
}

/** The seeded menu's modifier groups, their items' descriptions and its sold-out modifier in the second store. */
async function seedModifiers(
  seed: ReturnType<typeof createRegionSeedQueries>,
  companyId: number,
  storeIds: readonly number[],
  itemIds: readonly number[],
  now: Date,
): Promise<void> {
  for (const entry of seededMenu) {
    const itemId = itemIds[entry.itemIndex];
    if (itemId !== undefined) await seed.describeItem(companyId, itemId, entry.description);
  }
  const groups = seededGroupsOf(itemIds);
  const modifierIds = await seed.insertModifierGroups(companyId, groups);
  const soldOut = groups.findIndex(
    (group) => group.itemId === itemIds[seededSoldOutModifier.itemIndex] && group.name === seededSoldOutModifier.group,
  );
  const position = groups[soldOut]?.modifiers.findIndex((modifier) => modifier.name === seededSoldOutModifier.modifier);
  const modifierId = position === undefined ? undefined : modifierIds[soldOut]?.[position];
  if (storeIds.length > 1 && modifierId !== undefined)
    await seed.insertModifiersSoldOut(companyId, [{ storeId: storeIds[1]!, modifierId }], now);
}

/** How much a merchant of the demo or the sandbox starts with: the one profile both use, with the seeded menu. */
export function richMerchantProfile(now: Date, employee?: SeedOptions["employee"]): SeedOptions {
  return {
    storeCount: 2,
    itemCount: 300,
    salesDays: 90,
    onlineOrderCount: 60,
    now,
    menu: true,
    ...(employee ? { employee } : {}),
  };
}

/** A sandbox merchant's data set: as rich as the demo's live merchants (richMerchantProfile). */
export function seedSandboxMerchant(
  sql: postgres.Sql,
  region: Region,
  companyId: number,
  options: { now: Date; decisionSeconds: number },
): Promise<number[]> {
  return seedMerchantData(sql, region, companyId, {
    ...richMerchantProfile(options.now),
    decisionSeconds: options.decisionSeconds,
    menuAutopilot: true,
  });
}
