-- A page of the menu (GET /v1/items) answers each item with its modifiers. Read with the page as a subquery per
-- item, they cost PostgreSQL more than the items themselves (an index scan and an aggregate for each of the page's
-- rows: about 70 µs of a 110 µs read of 11 items, docs/benchmarks.md); reads outnumber menu edits by far, so each
-- item keeps its modifiers in the form the page reads, in a column of its own that these triggers rewrite in the
-- statement that changes a group or a modifier. Derived, never written by the service: a write path cannot forget
-- it, and a transaction that rolls back takes it back too. docs/decisions.md, "The menu: modifiers".

-- [group id, group name, min, max, modifier id, modifier name, price] for each modifier, in group and modifier
-- order; null for an item without groups (what the page's subquery answered).
alter table items add column modifier_list json;

-- The list of the items among `item_ids`, as it stands in this statement's snapshot. search_path is this region's
-- schema (the migration's), so a caller's own search_path does not matter.
create function refresh_item_modifier_lists(item_ids bigint[]) returns void
language sql set search_path from current as $$
  update items as item set modifier_list = (
    select json_agg(json_build_array(g.id, g.name, g.min_selections, g.max_selections, m.id, m.name, m.price_minor)
      order by g.position, m.position)
    from modifier_groups g join modifiers m on m.group_id = g.id
    where g.company_id = item.company_id and g.item_id = item.id)
  where item.id = any(item_ids)
$$;

-- Once per statement, with the rows it changed (transition tables): a replacement of an item's groups rewrites the
-- item's list once per statement, not once per row.
create function modifier_groups__refresh_lists() returns trigger
language plpgsql set search_path from current as $$
begin
  if tg_op = 'DELETE' then
    perform refresh_item_modifier_lists(array(select distinct item_id from old_rows));
  elsif tg_op = 'UPDATE' then
    perform refresh_item_modifier_lists(array(select item_id from old_rows union select item_id from new_rows));
  else
    perform refresh_item_modifier_lists(array(select distinct item_id from new_rows));
  end if;
  return null;
end
$$;

-- A modifier's item is its group's; a modifier deleted with its group (on delete cascade) finds no group here,
-- and the group's own trigger rewrites that item.
create function modifiers__refresh_lists() returns trigger
language plpgsql set search_path from current as $$
begin
  if tg_op = 'DELETE' then
    perform refresh_item_modifier_lists(array(
      select distinct g.item_id from modifier_groups g where g.id in (select group_id from old_rows)));
  elsif tg_op = 'UPDATE' then
    perform refresh_item_modifier_lists(array(
      select distinct g.item_id from modifier_groups g
      where g.id in (select group_id from old_rows union select group_id from new_rows)));
  else
    perform refresh_item_modifier_lists(array(
      select distinct g.item_id from modifier_groups g where g.id in (select group_id from new_rows)));
  end if;
  return null;
end
$$;

create trigger modifier_groups__refresh_lists__insert after insert on modifier_groups
  referencing new table as new_rows for each statement execute function modifier_groups__refresh_lists();
create trigger modifier_groups__refresh_lists__update after update on modifier_groups
  referencing old table as old_rows new table as new_rows for each statement execute function modifier_groups__refresh_lists();
create trigger modifier_groups__refresh_lists__delete after delete on modifier_groups
  referencing old table as old_rows for each statement execute function modifier_groups__refresh_lists();
create trigger modifiers__refresh_lists__insert after insert on modifiers
  referencing new table as new_rows for each statement execute function modifiers__refresh_lists();
create trigger modifiers__refresh_lists__update after update on modifiers
  referencing old table as old_rows new table as new_rows for each statement execute function modifiers__refresh_lists();
create trigger modifiers__refresh_lists__delete after delete on modifiers
  referencing old table as old_rows for each statement execute function modifiers__refresh_lists();

-- The lists of the items that have groups already.
select refresh_item_modifier_lists(array(select distinct item_id from modifier_groups));
