-- RFC 9126 section 6: an app may require pushed authorization requests. Then its plain /oauth/authorize (the
-- parameters on the URL) is refused with oauth.pushed_request_required; off by default, set by its developer in
-- the console (UpdateDeveloperApp). Forward-only.

alter table apps add column require_pushed_authorization_requests boolean not null default false;
