-- DPoP (RFC 9449, issue 40). A refresh family started with a DPoP proof is bound to that proof's key: its RFC 7638
-- SHA-256 thumbprint (43 base64url characters), and it refreshes only with a proof of the same key (section 5).
-- A code may be bound to a key before it is exchanged (section 10, `dpop_jkt` at the authorization request); null:
-- unbound. An app may require DPoP: then no token of it is Bearer-only. Forward-only.

alter table refresh_families
  add column dpop_jkt text constraint refresh_families__dpop_jkt__check check (char_length(dpop_jkt) = 43);

alter table authorization_codes
  add column dpop_jkt text constraint authorization_codes__dpop_jkt__check check (char_length(dpop_jkt) = 43);

alter table apps add column require_dpop boolean not null default false;
