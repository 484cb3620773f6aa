-- The automatic sandbox merchant's store (issue 39): when SANDBOX_MENU_AUTOPILOT_SECONDS is set, the store whose
-- menu_autopilot_at has come is paused (or resumed) and its next turn set that many seconds on. Set at seeding for
-- the second store of a sandbox merchant only; null everywhere else. docs/decisions.md, "The menu: orders".
alter table stores add column menu_autopilot_at timestamptz;
create index stores__menu_autopilot_at__idx on stores (menu_autopilot_at) where menu_autopilot_at is not null;
