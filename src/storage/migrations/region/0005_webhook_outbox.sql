-- The region's webhook outbox: an order event is written here, in the transaction of the order's move, and the
-- delivery workers relay it to the control database's deliveries (the same columns as control.webhook_outbox).
create table webhook_outbox (
  id bigint generated always as identity constraint webhook_outbox__id__pkey primary key,
  event_id text not null constraint webhook_outbox__event_id__key unique,
  type text not null,
  company_id bigint,
  app_id text,
  environment text,
  endpoint_id text,
  store_id bigint,
  data jsonb not null,
  occurred_at timestamptz not null,
  claimed_until timestamptz
);
