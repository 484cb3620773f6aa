-- The W3C traceparent of the request whose commit recorded an event (issue 41): the relay copies it to the event's
-- deliveries, whose attempt spans link back to that request. Null when tracing was off or the request not sampled.
alter table webhook_outbox add column traceparent text;
