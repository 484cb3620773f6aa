-- GET /v1/online-orders pages a company's orders in (placed_at, id) order: the keyset needs id in the index too, so
-- a page is one index range however deep it is. It covers every query the (company_id, placed_at) index served.
create index online_orders__company_id_placed_at_id__idx on online_orders (company_id, placed_at, id);
drop index online_orders__company_id_placed_at__idx;
