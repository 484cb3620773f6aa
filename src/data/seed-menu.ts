// The menu a demo or sandbox merchant starts with beyond its items (issue 39): two items a partner can order with
// choices, one with a required pick-one group and an optional pick-up-to-three one, one modifier sold out in the
// second store. Items 1 and 2 keep no groups: every test and the demo place orders with them as they are, and a
// required group there would refuse those orders (docs/decisions.md, "The menu: orders").
import type { SeedModifierGroup } from "./queries/region-seed-queries.js";

/** The seeded groups, by the item's place among the seeded items (0-based), with the item's description. */
export const seededMenu: ReadonlyArray<{
  itemIndex: number;
  description: string;
  groups: ReadonlyArray<Omit<SeedModifierGroup, "itemId" | "position">>;
}> = [
  {
    itemIndex: 3,
    description: "Made to order on the bread of your choice.",
    groups: [
      {
        name: "Bread",
        minSelections: 1,
        maxSelections: 1,
        modifiers: [
          { name: "White", priceMinor: 0 },
          { name: "Brown", priceMinor: 0 },
          { name: "Sourdough", priceMinor: 60 },
        ],
      },
      {
        name: "Extras",
        minSelections: 0,
        maxSelections: 3,
        modifiers: [
          { name: "Cheese", priceMinor: 80 },
          { name: "Bacon", priceMinor: 120 },
          { name: "Avocado", priceMinor: 150 },
          { name: "Fried egg", priceMinor: 90 },
        ],
      },
    ],
  },
  {
    itemIndex: 4,
    description: "Fresh leaves, dressed as you like.",
    groups: [
      {
        name: "Size",
        minSelections: 1,
        maxSelections: 1,
        modifiers: [
          { name: "Regular", priceMinor: 0 },
          { name: "Large", priceMinor: 200 },
        ],
      },
      {
        name: "Dressing",
        minSelections: 0,
        maxSelections: 1,
        modifiers: [
          { name: "Vinaigrette", priceMinor: 0 },
          { name: "Caesar", priceMinor: 0 },
          { name: "Tahini", priceMinor: 50 },
        ],
      },
    ],
  },
];

/** The modifier sold out (until further notice) in the second store: the first seeded item's Avocado. */
export const seededSoldOutModifier = { itemIndex: 3, group: "Extras", modifier: "Avocado" } as const;

/** The groups to insert for the merchant's `itemIds` (the seeded items, in order); none when there are too few. */
export function seededGroupsOf(itemIds: readonly number[]): SeedModifierGroup[] {
  return seededMenu.flatMap((entry) => {
    const itemId = itemIds[entry.itemIndex];
    if (itemId === undefined) return [];
    return entry.groups.map((group, position) => ({ ...group, itemId, position }));
  });
}
