-- Names after review: the name merchants see (consent screen, connected apps, access requests) is the one staff
-- reviewed. A rename of an APPROVED app waits here until ApproveApp takes it (or RejectApp drops it); other
-- states rename `name` at once. Forward-only.

alter table apps
  add column pending_name text,
  add constraint apps__pending_name__check check (pending_name is null or state = 'APPROVED');
