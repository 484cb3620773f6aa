-- Wakes the webhook relays at the commit of an event (LISTEN webhook_outbox; the payload names the outbox's
-- schema), so an event leaves within the second without every relay polling every outbox several times a second.
-- NOTIFY is delivered at commit and never for a rolled-back transaction; the relays still poll, slowly, for a
-- notification lost while their listening connection was down.
create function notify_webhook_outbox() returns trigger
language plpgsql as $$
begin
  perform pg_notify('webhook_outbox', tg_table_schema);
  return null;
end
$$;

create trigger webhook_outbox__notify
after insert on webhook_outbox
for each statement execute function notify_webhook_outbox();
