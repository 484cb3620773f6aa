// An item's modifier list (region migration 0020: the column a page of the menu reads its modifiers from) is kept by
// the database's triggers through every write: groups and modifiers inserted, renamed, re-ordered, moved between
// groups and deleted (by the catalogue's own replacement, `createModifierQueries().replace`), a group deleted with
// its modifiers (on delete cascade), a write rolled back; another item's list is never touched. Each state is read as a
// page of the menu reads it (`listWithModifiers`) and compared with the modifiers read live (`ofItems`), the first ones
// also with the exact value. In a region schema of its own made by the region migrations, on PGlite and PostgreSQL.
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createItemQueries, type ModifierRow } from "../../src/data/queries/item-queries.js";
import { createModifierQueries, listedModifiers, type GroupWrite } from "../../src/data/queries/modifier-queries.js";
import { migrateRegionSchema } from "../../src/storage/migrate.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { useTestDatabase } from "../support/storage.js";

const Lists = suite("data/item-modifier-list");
const database = useTestDatabase(Lists);
const schema = `modifier_list_${process.pid}_${Date.now().toString(36)}`;
const company = 7_000_001;
let burger = 0;
let fries = 0;

type Entry = [number, string, number, number, number, string, number];

/** A modifier row as one comparable entry: [group id, group name, min, max, modifier id, modifier name, price]. */
const entryOf = (row: ModifierRow): Entry => [
  Number(row.group_id),
  row.group_name,
  row.min_selections,
  row.max_selections,
  Number(row.modifier_id),
  row.modifier_name,
  Number(row.price_minor),
];

/**
 * The item's modifiers as a page of the menu reads them (the list on its row, through `listWithModifiers`), that
 * list as stored (null: no groups), and the same modifiers read live from the groups and modifiers (`ofItems`).
 */
async function lists(itemId: number): Promise<{ stored: unknown; kept: Entry[]; live: Entry[] }> {
  const { sql } = database();
  const page = await createItemQueries(sql, schema).listWithModifiers(company, 0, 10);
  const row = page.find((listed) => Number(listed.id) === itemId)!;
  const live = await createModifierQueries(sql, schema).ofItems(company, [itemId]);
  return { stored: row.modifiers, kept: listedModifiers([row]).map(entryOf), live: live.map(entryOf) };
}

/** The names in the kept list, after checking it is the live one. */
async function keptNames(itemId: number): Promise<Array<[string, string, number]>> {
  const { kept, live } = await lists(itemId);
  assert.equal(kept, live, "the kept list is the live one");
  return kept.map(([, group, , , , modifier, price]) => [group, modifier, price]);
}

async function replace(itemId: number, groups: GroupWrite[]): Promise<void> {
  const { sql } = database();
  await sql.begin((tx) => createModifierQueries(tx, schema).replace(company, itemId, groups));
}

/** The item's groups with their modifiers' ids and names, in menu order, read live. */
async function stored(
  itemId: number,
): Promise<Array<{ id: number; name: string; modifiers: Array<{ id: number; name: string }> }>> {
  const { sql } = database();
  const groups = new Map<number, { id: number; name: string; modifiers: Array<{ id: number; name: string }> }>();
  for (const row of await createModifierQueries(sql, schema).ofItems(company, [itemId])) {
    const id = Number(row.group_id);
    if (!groups.has(id)) groups.set(id, { id, name: row.group_name, modifiers: [] });
    groups.get(id)!.modifiers.push({ id: Number(row.modifier_id), name: row.modifier_name });
  }
  return [...groups.values()];
}

Lists.before(async () => {
  const { sql } = database();
  await migrateRegionSchema(sql, schema, silentLogger);
  const items = await sql<Array<{ id: string }>>`
    insert into ${sql(`${schema}.items`)} (company_id, name, code, price_minor, currency)
    values (${company}, 'Burger', 'B-1', 900, 'GBP'), (${company}, 'Fries', 'F-1', 300, 'GBP') returning id`;
  [burger, fries] = items.map((item) => Number(item.id)) as [number, number];
});

Lists.after(async () => {
  const { sql } = database();
  await sql`drop schema ${sql(schema)} cascade`;
});

Lists("an item without groups has no list", async () => {
  assert.equal(await lists(burger), { stored: null, kept: [], live: [] });
});

Lists("groups and modifiers inserted are listed in group and modifier order, with their ids", async () => {
  await replace(burger, [
    {
      name: "Size",
      minSelections: 1,
      maxSelections: 1,
      modifiers: [
        { name: "Regular", priceMinor: 0 },
        { name: "Large", priceMinor: 150 },
      ],
    },
    { name: "Extras", minSelections: 0, maxSelections: 2, modifiers: [{ name: "Cheese", priceMinor: 90 }] },
  ]);
  await replace(fries, [
    { name: "Salt", minSelections: 0, maxSelections: 1, modifiers: [{ name: "Sea salt", priceMinor: 0 }] },
  ]);
  const [size, extras] = await stored(burger);
  const { kept } = await lists(burger);
  assert.equal(kept, [
    [size!.id, "Size", 1, 1, size!.modifiers[0]!.id, "Regular", 0],
    [size!.id, "Size", 1, 1, size!.modifiers[1]!.id, "Large", 150],
    [extras!.id, "Extras", 0, 2, extras!.modifiers[0]!.id, "Cheese", 90],
  ]);
  assert.equal(await keptNames(fries), [["Salt", "Sea salt", 0]]);
});

Lists("a replacement that renames, re-orders, moves, adds and deletes is listed as it stands", async () => {
  const [size, extras] = await stored(burger);
  const [regular, large] = size!.modifiers;
  // Extras first, renamed; Large moves into it; Regular is dropped with Size; a new group and a new modifier.
  await replace(burger, [
    {
      id: extras!.id,
      name: "Toppings",
      minSelections: 0,
      maxSelections: 3,
      modifiers: [
        { id: large!.id, name: "Large patty", priceMinor: 200 },
        { id: extras!.modifiers[0]!.id, name: "Cheese", priceMinor: 90 },
      ],
    },
    { name: "Sauce", minSelections: 0, maxSelections: 1, modifiers: [{ name: "Ketchup", priceMinor: 0 }] },
  ]);
  assert.ok(regular);
  assert.equal(await keptNames(burger), [
    ["Toppings", "Large patty", 200],
    ["Toppings", "Cheese", 90],
    ["Sauce", "Ketchup", 0],
  ]);
  assert.equal(await keptNames(fries), [["Salt", "Sea salt", 0]], "another item's list is untouched");
});

Lists("a group deleted with its modifiers (on delete cascade) leaves the list", async () => {
  const { sql } = database();
  const [toppings] = await stored(burger);
  await sql`delete from ${sql(`${schema}.modifier_groups`)} where id = ${toppings!.id}`;
  assert.equal(await keptNames(burger), [["Sauce", "Ketchup", 0]]);
});

Lists("a write rolled back leaves the list as it was", async () => {
  const { sql } = database();
  const rolledBack = new Error("rolled back on purpose");
  const thrown = await sql
    .begin(async (tx) => {
      await createModifierQueries(tx, schema).replace(company, burger, []);
      throw rolledBack;
    })
    .catch((error: unknown) => error);
  assert.is(thrown, rolledBack);
  assert.equal(await keptNames(burger), [["Sauce", "Ketchup", 0]]);
});

Lists("replacing every group with none empties the list", async () => {
  await replace(burger, []);
  assert.equal(await lists(burger), { stored: null, kept: [], live: [] });
  assert.equal(await keptNames(fries), [["Salt", "Sea salt", 0]]);
});

Lists.run();
