-- A category's items in menu order (issue 39: categories answer `itemIds`): one range of this index per category,
-- (company, category, menu_position, id) over the items still on the menu, so listing a page of categories with
-- their items costs the items listed, not the merchant's whole menu. docs/decisions.md, "The menu: change feed".
create index items__company_id_category_id_menu_position__idx on items (company_id, category_id, menu_position, id)
  where deleted_at is null;
