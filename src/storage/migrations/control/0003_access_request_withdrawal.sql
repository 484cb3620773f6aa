-- ADSR access requests: an approval can be withdrawn later by the merchant's owner; when and by whom is kept
-- beside the decision (decided_at / decided_by_user_id stay those of the approval). Pending requests past
-- expires_at are expired at read time; listing a company's pending ones uses the state and expiry. Forward-only.

alter table access_requests
  add column withdrawn_at timestamptz,
  add column withdrawn_by_user_id bigint constraint access_requests__withdrawn_by_user_id__fkey references merchant_users (id),
  add constraint access_requests__withdrawn__check check ((withdrawn_at is null) = (state <> 'WITHDRAWN'));

create index access_requests__app_id__idx on access_requests (app_id);
