-- Online orders end to end: what a partner sends when it places an order, the lifecycle's moves (each stamped and
-- recorded in online_order_events in the same transaction), the change feed's per-merchant stamp, and the timers
-- (the decision timeout, the sandbox autopilot). docs/decisions.md, "Online orders: lifecycle and change feed".
alter table online_orders
  add column updated_at timestamptz,
  -- The app that placed the order (the only one that may cancel it); null for seeded orders.
  add column app_id text,
  add column external_reference text,
  add column fulfilment_type text constraint online_orders__fulfilment_type__check check (fulfilment_type in ('PICKUP', 'DELIVERY')),
  add column delivery_address jsonb,
  add column customer_name text,
  add column customer_phone text,
  add column note text,
  add column requested_for timestamptz,
  add column promised_for timestamptz,
  -- Why it was rejected or cancelled (OnlineOrderReason without its prefix).
  add column reason text,
  -- While PENDING: when the platform rejects it with TIMED_OUT. Null for seeded orders, which predate the timeout.
  add column decide_by timestamptz,
  -- A sandbox order's next automatic move (SANDBOX_ORDER_AUTOPILOT_SECONDS); null when none is due.
  add column autopilot_at timestamptz;
update online_orders set updated_at = placed_at;
-- Rows inserted outside the lifecycle (seeding) take their placed_at; the default only serves direct inserts.
alter table online_orders alter column updated_at set not null, alter column updated_at set default now();

-- The change feed pages a merchant's orders in (updated_at, id) order.
create index online_orders__company_id_updated_at_id__idx on online_orders (company_id, updated_at, id);
-- Reconciling after a network error: the placing app's order by its own reference.
create index online_orders__company_id_app_id_external_reference__idx on online_orders (company_id, app_id, external_reference)
  where external_reference is not null;
-- The timers find what is due without scanning settled orders.
create index online_orders__decide_by__idx on online_orders (decide_by) where decide_by is not null;
create index online_orders__autopilot_at__idx on online_orders (autopilot_at) where autopilot_at is not null;

-- One row per merchant: the stamp of its latest order change. Every change of the merchant's orders locks this row
-- for the rest of its transaction and stamps updated_at strictly after the previous one, so the merchant's changes
-- commit in updated_at order and a reader's snapshot always holds a prefix of that order (the change feed can never
-- skip a change that commits while it reads).
create table online_order_feed_heads (
  company_id bigint constraint online_order_feed_heads__company_id__pkey primary key,
  last_changed_at timestamptz not null
);

-- An order's history: one row for its creation and one per move, written in the move's transaction.
create table online_order_events (
  id bigserial constraint online_order_events__id__pkey primary key,
  company_id bigint not null,
  store_id bigint not null,
  order_id bigint not null constraint online_order_events__order_id__fkey references online_orders (id),
  -- online_order.created or online_order.updated (the webhook event types).
  type text not null,
  from_status text,
  status text not null,
  -- app:<app id>, pos, platform, sandbox
  actor text not null,
  reason text,
  occurred_at timestamptz not null
);
create index online_order_events__company_id_order_id_id__idx on online_order_events (company_id, order_id, id);
