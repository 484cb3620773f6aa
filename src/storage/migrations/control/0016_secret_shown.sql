-- When a client id's secret first left the server to someone who keeps it, and to whom: the console's one reveal of
-- a production secret (the member's email), or the demo writing it to demo.json ("demo.json"). A reveal replaces
-- the secret issued at approval, so it is offered only while nobody has it (docs/decisions.md, "A reveal never
-- kills a secret in use"). Forward-only.

alter table client_credentials
  add column secret_shown_at timestamptz,
  add column secret_shown_to text constraint client_credentials__secret_shown_to__check
    check (char_length(secret_shown_to) between 1 and 320);

-- A client id with more than one secret had one handed out (a reveal or a rotation): shown, to someone unrecorded.
update client_credentials c set secret_shown_at = (
  select s.created_at from client_secrets s where s.client_id = c.client_id order by s.id offset 1 limit 1
) where (select count(*) from client_secrets s where s.client_id = c.client_id) > 1;
