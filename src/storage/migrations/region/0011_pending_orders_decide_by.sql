-- Every PENDING order follows the API guide's table: decideBy is 15 minutes (ONLINE_ORDER_DECISION_SECONDS) after
-- it was placed, then the platform rejects it (TIMED_OUT). Seeded orders had no decide_by and stayed PENDING for
-- ever; the seed now sets it (src/data/sandbox-data.ts). Rows seeded before get the setting's default (900 s) after
-- their placing, so the timers time out the old ones at their next sweep, as the table says. Forward-only.
update online_orders set decide_by = placed_at + interval '900 seconds' where status = 'PENDING' and decide_by is null;

alter table online_orders add constraint online_orders__pending_decide_by__check
  check (status <> 'PENDING' or decide_by is not null);
