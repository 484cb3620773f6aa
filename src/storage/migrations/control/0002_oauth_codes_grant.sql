-- OAuth: an authorization code names the grant the merchant's approval made or reused, so a disconnect between
-- approval and exchange (or a disconnect and a new approval) leaves the earlier code without a live grant.
-- Refresh families remember which code started them, for the audit trail. Forward-only.

alter table authorization_codes
  add column grant_id bigint constraint authorization_codes__grant_id__fkey references grants (id);

alter table refresh_families
  add column code_hash bytea constraint refresh_families__code_hash__fkey references authorization_codes (code_hash);
create unique index refresh_families__code_hash__key on refresh_families (code_hash) where code_hash is not null;

-- Expired codes are deleted by age; consumed ones are kept until then (a second exchange must find them).
create index authorization_codes__expires_at__idx on authorization_codes (expires_at);
