-- The app's public pages, given by its developer in the console and shown to merchants on the consent screen:
-- its website, privacy policy and terms. Each is optional (null: not given) until the app is submitted for review,
-- which needs all three (developer.app_links_missing). The service checks each is an absolute https URL without
-- credentials (src/credential/app-links.ts); the database keeps the length bound. Forward-only.

alter table apps
  add column website_url text constraint apps__website_url__check check (char_length(website_url) between 1 and 2000),
  add column privacy_policy_url text
    constraint apps__privacy_policy_url__check check (char_length(privacy_policy_url) between 1 and 2000),
  add column terms_url text constraint apps__terms_url__check check (char_length(terms_url) between 1 and 2000);
