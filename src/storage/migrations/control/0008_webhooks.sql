-- Events and webhooks (Standard Webhooks): an app's endpoints, the outbox of events committed with the change that
-- made them (grants, access requests), and each event's delivery to each endpoint with its attempts. The delivery
-- jobs themselves live in pg-boss's own schema (webhook_queue), created by pg-boss at start.

create table webhook_endpoints (
  id text constraint webhook_endpoints__id__pkey primary key,
  app_id text not null constraint webhook_endpoints__app_id__fkey references apps (id),
  environment text not null constraint webhook_endpoints__environment__check check (environment in ('SANDBOX', 'PRODUCTION')),
  url text not null,
  description text not null default '',
  -- The event types it receives; empty: every type.
  event_types text[] not null default '{}',
  -- The signing secret's key (32 bytes) sealed under the key-encryption key, as the token signing keys are.
  secret_sealed bytea not null,
  -- After a rotation the previous key signs beside the new one until previous_secret_expires_at.
  previous_secret_sealed bytea,
  previous_secret_expires_at timestamptz,
  -- The first failure after the last success; five days of failures in a row disable the endpoint.
  failing_since timestamptz,
  disabled_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create index webhook_endpoints__app_id_environment__idx on webhook_endpoints (app_id, environment) where deleted_at is null;

-- The outbox: one row per event, written in the transaction of the change; the relay fans it out and deletes it.
create table webhook_outbox (
  id bigint generated always as identity constraint webhook_outbox__id__pkey primary key,
  event_id text not null constraint webhook_outbox__event_id__key unique,
  type text not null,
  company_id bigint,
  -- Who may see it: one app (grants, access requests) in one environment, or one endpoint (webhook.test), or,
  -- when both are null, every app that may see the company's store (orders).
  app_id text,
  environment text,
  endpoint_id text,
  store_id bigint,
  data jsonb not null,
  occurred_at timestamptz not null,
  -- A relay's lease: another relay takes the row only after it lapses (the first one died mid-way).
  claimed_until timestamptz
);

create table webhook_deliveries (
  id text constraint webhook_deliveries__id__pkey primary key,
  endpoint_id text not null constraint webhook_deliveries__endpoint_id__fkey references webhook_endpoints (id),
  event_id text not null,
  event_type text not null,
  -- The exact body sent (and signed) on every attempt.
  payload text not null,
  state text not null constraint webhook_deliveries__state__check check (state in ('PENDING', 'SUCCEEDED', 'FAILED')),
  -- Attempts started, and attempts whose outcome is recorded; a started attempt is claimed by one worker only.
  attempts_started int not null default 0,
  attempts_recorded int not null default 0,
  attempt_started_at timestamptz,
  next_attempt_at timestamptz,
  -- When the event's change committed (the outbox row's time): the benchmark's commit-to-receipt starts here.
  occurred_at timestamptz not null,
  created_at timestamptz not null,
  constraint webhook_deliveries__endpoint_id_event_id__key unique (endpoint_id, event_id)
);
create index webhook_deliveries__endpoint_id_created_at__idx on webhook_deliveries (endpoint_id, created_at desc, id desc);

create table webhook_attempts (
  delivery_id text not null constraint webhook_attempts__delivery_id__fkey references webhook_deliveries (id),
  attempt int not null,
  attempted_at timestamptz not null,
  outcome text not null constraint webhook_attempts__outcome__check
    check (outcome in ('SUCCEEDED', 'HTTP_ERROR', 'TIMEOUT', 'CONNECTION_ERROR', 'ADDRESS_REFUSED', 'ENDPOINT_DISABLED')),
  status_code int,
  duration_ms int not null,
  -- The start of the receiver's answer, at most 256 characters (never shown in full).
  response_excerpt text not null default '',
  constraint webhook_attempts__delivery_id_attempt__pkey primary key (delivery_id, attempt)
);
