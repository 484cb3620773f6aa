-- The rest of the menu (issue 39): an item's modifier groups (size, extras) with their modifiers and each modifier's
-- availability per store; a category's place on the menu and its items' order; and the catalogue change feed's
-- per-merchant stamp. docs/decisions.md, "The menu: modifiers" and "The menu: change feed".

-- A group of choices of one item ("Size": pick exactly 1; "Extras": up to 3). A group belongs to one item: an
-- update replaces an item's groups, keeping the ids of the groups and modifiers it names again.
create table modifier_groups (
  id bigint generated always as identity constraint modifier_groups__id__pkey primary key,
  company_id bigint not null,
  item_id bigint not null,
  name text not null,
  min_selections integer not null,
  max_selections integer not null,
  -- The group's place among its item's groups, from 0.
  position integer not null,
  constraint modifier_groups__company_id_id__key unique (company_id, id),
  constraint modifier_groups__company_id_item_id__fkey foreign key (company_id, item_id)
    references items (company_id, id),
  constraint modifier_groups__selections__check
    check (min_selections >= 0 and max_selections >= 1 and min_selections <= max_selections)
);
create index modifier_groups__item_id_position__idx on modifier_groups (item_id, position);

-- One choice of a group, priced in its item's currency (0: free).
create table modifiers (
  id bigint generated always as identity constraint modifiers__id__pkey primary key,
  company_id bigint not null,
  group_id bigint not null,
  name text not null,
  price_minor bigint not null constraint modifiers__price_minor__check check (price_minor >= 0),
  position integer not null,
  constraint modifiers__company_id_id__key unique (company_id, id),
  constraint modifiers__company_id_group_id__fkey foreign key (company_id, group_id)
    references modifier_groups (company_id, id) on delete cascade
);
create index modifiers__group_id_position__idx on modifiers (group_id, position);

-- A modifier's availability in one store, as item_store_availability is an item's: no row, available.
create table modifier_store_availability (
  company_id bigint not null,
  store_id bigint not null,
  modifier_id bigint not null,
  available boolean not null,
  unavailable_until timestamptz,
  updated_at timestamptz not null,
  constraint modifier_store_availability__store_id_modifier_id__pkey primary key (store_id, modifier_id),
  constraint modifier_store_availability__company_id_store_id__fkey foreign key (company_id, store_id)
    references stores (company_id, id),
  constraint modifier_store_availability__company_id_modifier_id__fkey foreign key (company_id, modifier_id)
    references modifiers (company_id, id) on delete cascade,
  constraint modifier_store_availability__until__check check (available = false or unavailable_until is null)
);

-- A category's place on the menu (lower first, then id) and an item's place in its category (lower first; none:
-- after those with one, in id order).
alter table categories add column sort_order integer not null default 0;
alter table items add column menu_position integer;

-- The catalogue change feed pages each resource in (updated_at, id) order.
create index items__company_id_updated_at_id__idx on items (company_id, updated_at, id);
create index categories__company_id_updated_at_id__idx on categories (company_id, updated_at, id);
create index stores__company_id_updated_at_id__idx on stores (company_id, updated_at, id);

-- The stamp of a merchant's latest catalogue change. Every catalogue write takes the next stamp under this row's
-- lock and holds it until it commits, so a merchant's catalogue changes commit in updated_at order and a reader's
-- snapshot holds a prefix of that order: a feed reader that stores its cursor never misses a change that commits
-- after it read (as online_order_feed_heads does for orders).
create table catalogue_feed_heads (
  company_id bigint constraint catalogue_feed_heads__company_id__pkey primary key,
  last_changed_at timestamptz not null
);
