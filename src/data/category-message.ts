// A category as the DataService answers it (issue 39): its place on the menu (`sortOrder`), the ids of its items on
// the menu in menu order (`itemIds`), and `updatedAt` to the microsecond, the change feed's key.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CategorySchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import type { CategoryRow, createCategoryQueries } from "./queries/category-queries.js";
import type { createItemQueries } from "./queries/item-queries.js";
import { categoryEvent } from "./catalogue-events.js";
import type { CatalogueEvent } from "./catalogue-changes.js";

/** What reads categories: the DataContext, or a catalogue change's queries on its transaction. */
export interface CategoryReader {
  items: Pick<ReturnType<typeof createItemQueries>, "inCategories">;
}

export function categoryOf(row: CategoryRow, itemIds: readonly number[]): MessageInitShape<typeof CategorySchema> {
  return {
    id: BigInt(row.id),
    name: row.name,
    code: row.code ?? undefined,
    sortOrder: Number(row.sort_order),
    itemIds: itemIds.map((id) => BigInt(id)),
    updatedAt: row.updated_key,
  };
}

/** The categories of `rows` as answered, each with its items in menu order (one query for them all). */
export async function categoriesIn(reader: CategoryReader, companyId: number, rows: readonly CategoryRow[]) {
  const items = await reader.items.inCategories(
    companyId,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => categoryOf(row, items.get(Number(row.id)) ?? []));
}

/**
 * Stamps the categories an item write moved items in or out of (their `itemIds` changed), so the categories' change
 * feed gives them again, and answers their category.updated events. `ids` may hold nulls (no category) and repeats.
 */
export async function touchCategories(
  writer: CategoryReader & { categories: Pick<ReturnType<typeof createCategoryQueries>, "touch"> },
  companyId: number,
  ids: ReadonlyArray<number | null>,
  stamp: string,
): Promise<CatalogueEvent[]> {
  const touched = [...new Set(ids.filter((id): id is number => id !== null).map(Number))];
  if (touched.length === 0) return [];
  const rows = await writer.categories.touch(companyId, touched, stamp);
  const categories = await categoriesIn(writer, companyId, rows);
  return categories.map((category) => categoryEvent("category.updated", category));
}
