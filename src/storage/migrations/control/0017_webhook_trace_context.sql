-- The W3C traceparent of the request whose commit recorded an event (issue 41), carried from the outbox to each
-- delivery, so every delivery attempt's span links back to that request's span. Null when tracing was off or the
-- request was not sampled; a hint for traces only, never read for anything else.
alter table webhook_outbox add column traceparent text;
alter table webhook_deliveries add column traceparent text;
