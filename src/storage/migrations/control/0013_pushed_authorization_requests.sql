-- RFC 9126 pushed authorization requests: the parameters a client pushed to POST /v1/oauth/par, named by the hash
-- of their request_uri (never the value itself, like every secret here). The request lives 60 s until the
-- browser first brings it to /oauth/authorize, then long enough to sign in and decide (src/grant/pushed-requests.ts);
-- the decision consumes it in the transaction that makes the code, so it decides exactly once. Forward-only.

create table pushed_authorization_requests (
  request_uri_hash bytea primary key,
  client_id text not null,
  -- The authorization parameters as pushed (names of src/grant/authorization.ts's authorizationParameters).
  parameters jsonb not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  -- The first authorize visit (the life is extended then), and the consent decision that used it up.
  opened_at timestamptz,
  consumed_at timestamptz
);

create index pushed_authorization_requests__expires_at on pushed_authorization_requests (expires_at);
