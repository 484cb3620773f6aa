-- Stores a partner can sell from (issue 39): where a store is, the time zone its hours are read in, its opening hours
-- and whether it takes online orders now. docs/decisions.md, "The menu: stores".
alter table stores
  -- {line1, line2?, city, region?, postcode?, country}; null until the point of sale gives it.
  add column address jsonb,
  -- IANA name, checked by the DataService (Intl) before it is written.
  add column time_zone text not null default 'UTC',
  -- {weekly: [{day, ranges: [{open, close}]}], exceptions: [{date, ranges, note?}]}; null: hours not published.
  add column opening_hours jsonb,
  add column online_ordering_status text not null default 'ACCEPTING'
    constraint stores__online_ordering_status__check check (online_ordering_status in ('ACCEPTING', 'PAUSED')),
  -- A pause that ends by itself; only a PAUSED store has one (or a reason).
  add column paused_until timestamptz,
  add column pause_reason text,
  add column updated_at timestamptz,
  add constraint stores__pause__check check (
    online_ordering_status = 'PAUSED' or (paused_until is null and pause_reason is null));
update stores set updated_at = created_at;
alter table stores alter column updated_at set not null, alter column updated_at set default now();
-- A store made before hours existed keeps no hours, in its region's zone rather than UTC.
update stores set time_zone = case current_schema()
  when 'region_uk' then 'Europe/London'
  when 'region_us' then 'America/New_York'
  when 'region_in' then 'Asia/Kolkata'
  when 'region_ae' then 'Asia/Dubai'
  else 'UTC' end;
