-- Invitations an organization can manage: a pending one can be revoked (its link stops working) or resent (a new
-- row with a new token; the old row is superseded by it, and its link stops working too). Both ends are kept,
-- not deleted, so an old link is answered in words ("revoked", "replaced by a newer invitation") rather than as
-- unknown. And the language a developer last used the console in, so mail to an existing account (an invitation)
-- is written in that language. Forward-only.

alter table organization_invitations
  add column revoked_at timestamptz,
  add column superseded_by bigint constraint organization_invitations__superseded_by__fkey references organization_invitations (id),
  add constraint organization_invitations__ended__check check (revoked_at is null or superseded_by is null);

alter table developer_accounts
  add column locale text constraint developer_accounts__locale__check check (locale in ('en', 'ar', 'hi'));
