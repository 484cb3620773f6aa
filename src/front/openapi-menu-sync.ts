// The OpenAPI document's "Menu sync" section (./openapi.ts): a tag whose description is how a partner keeps a copy
// of a merchant's menu in sync (the polling loop with the change feeds' cursors, tombstones, the catalogue events),
// on the three list operations that are those feeds. The API guide says the same at more length (docs/api-guide.md).
import type { Route } from "./route-table.js";

/** The list operations that are the catalogue's change feeds with `updatedFrom`. */
const feedOperations = new Set(["DataService.ListItems", "DataService.ListStores", "DataService.ListCategories"]);

export const menuSyncTagName = "Menu sync";

/** Whether the route is one of the catalogue's change feeds. */
export function isMenuSyncRoute(route: Route): boolean {
  return feedOperations.has(`${route.service.name}.${route.method.name}`);
}

/** The tag object of the document's top-level `tags`. */
export const menuSyncTag = {
  name: menuSyncTagName,
  description: `Keeping a copy of a merchant's menu: \`GET /v1/items\`, \`GET /v1/stores\` and \`GET /v1/categories\` with \`updatedFrom\` (RFC 3339, inclusive) are change feeds. Each lists the rows changed since then in (\`updatedAt\`, \`id\`) order, and every page, the last and an empty one included, answers a \`nextCursor\`. Keep one cursor per feed and poll with it alone:

\`\`\`
cursor = load(feed) or none
loop:
    page = GET /v1/items?cursor=<cursor>&limit=100   (first time: ?updatedFrom=<start>&limit=100)
    for row in page.items: if row.deleted: remove(row.id) else: upsert(row)
    cursor = page.nextCursor; save(feed, cursor)     (after handling: a crash re-reads, never skips)
    if page.items is empty: sleep 5 to 30 seconds
\`\`\`

A poller that keeps its cursor sees every change once and misses none, even one committed while it read: every catalogue change of a merchant commits in \`updatedAt\` order. A row that changed twice between polls comes once, as it is now. An item that left the menu comes as its tombstone (\`deleted: true\`, its \`id\` and the deletion's \`updatedAt\`); tombstones are kept for good, so any kept cursor resumes. An availability change is an item change (add \`storeId\` to read availability in one store); a category changes when an item joins, leaves or is deleted from it. A bad \`updatedFrom\` is 400 \`partner.feed_updated_from_invalid\`, a cursor of another feed 400 \`partner.feed_cursor_invalid\`. The events \`item.created\`, \`item.updated\`, \`item.deleted\`, \`category.created\`, \`category.updated\` and \`store.updated\` (see \`webhooks\`) are sent from the same transactions as the changes: use them to poll sooner, and the feeds to catch up.`,
};
