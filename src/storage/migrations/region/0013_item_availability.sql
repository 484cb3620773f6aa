-- Items of a menu (issue 39): a description, a deletion that takes an item off the menu while orders keep their
-- copied lines, and availability per store. docs/decisions.md, "The menu: items".
alter table items
  add column description text,
  -- Set when the item leaves the menu; the row stays (orders copied its lines, the change feed will need tombstones).
  add column deleted_at timestamptz,
  -- Target of item_store_availability's foreign key, so a row can only name its own company's item.
  add constraint items__company_id_id__key unique (company_id, id);
-- The constraint's index is the (company_id, id) index the list's keyset paging reads (docs/decisions.md, "Flat costs
-- at scale"); the plain one it replaces would be a second copy of it.
drop index items__company_id_id__idx;

-- A deleted item frees its code and barcode for a new item: the uniqueness holds among items on the menu only. The
-- indexes keep the constraints' names, which the DataService maps to db.duplicate's field.
alter table items drop constraint items__company_id_code__key, drop constraint items__company_id_barcode__key;
create unique index items__company_id_code__key on items (company_id, code) where deleted_at is null;
create unique index items__company_id_barcode__key on items (company_id, barcode) where deleted_at is null;

-- An item's availability in one store; no row: available. A row with available = false and unavailable_until in the
-- past reads available again, with nothing written.
create table item_store_availability (
  company_id bigint not null,
  store_id bigint not null,
  item_id bigint not null,
  available boolean not null,
  unavailable_until timestamptz,
  updated_at timestamptz not null,
  constraint item_store_availability__store_id_item_id__pkey primary key (store_id, item_id),
  constraint item_store_availability__company_id_store_id__fkey foreign key (company_id, store_id)
    references stores (company_id, id),
  constraint item_store_availability__company_id_item_id__fkey foreign key (company_id, item_id)
    references items (company_id, id),
  constraint item_store_availability__until__check check (available = false or unavailable_until is null)
);
