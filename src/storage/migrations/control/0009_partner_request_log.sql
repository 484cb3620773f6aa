-- The partner request log the console shows a developer: the last partner calls of each app and environment (kept
-- to the newest 1,000 by the recorder's trim), their count per minute (requests and 429s, for the usage chart,
-- kept 25 hours) and, per app and merchant, when the app last called (the merchant's connected-apps page). Written
-- in batches off the request path (src/request-log/). Never a secret, a token or a successful call's body; the
-- rendered error body of a refused call only. Forward-only.

create table partner_requests (
  id bigint generated always as identity constraint partner_requests__id__pkey primary key,
  app_id text not null,
  environment text not null constraint partner_requests__environment__check check (environment in ('SANDBOX', 'PRODUCTION')),
  at timestamptz not null,
  method text not null,
  path text not null,
  status smallint not null,
  error_code text,
  company_id bigint,
  correlation_id text not null,
  latency_ms real not null,
  error_body text
);
-- The console's reads (newest first, per app and environment) and the recorder's trim use this one index.
create index partner_requests__app_id_environment_id__idx on partner_requests (app_id, environment, id desc);

create table partner_usage_minutes (
  app_id text not null,
  environment text not null constraint partner_usage_minutes__environment__check check (environment in ('SANDBOX', 'PRODUCTION')),
  minute timestamptz not null,
  requests integer not null,
  limited integer not null,
  constraint partner_usage_minutes__app_id_environment_minute__pkey primary key (app_id, environment, minute)
);

create table partner_last_calls (
  app_id text not null,
  company_id bigint not null,
  at timestamptz not null,
  constraint partner_last_calls__app_id_company_id__pkey primary key (app_id, company_id)
);
