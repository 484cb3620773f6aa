-- The webhook backlog metric (partnerapi_webhook_backlog_age_seconds{stage="attempt"}, issue 41) asks at every
-- scrape for the oldest due attempt of a pending delivery; deliveries are kept as history and grow without bound,
-- so the pending ones get an index of their own, small because pending deliveries are few.
create index webhook_deliveries__next_attempt_at__pending__idx on webhook_deliveries (next_attempt_at)
  where state = 'PENDING';
