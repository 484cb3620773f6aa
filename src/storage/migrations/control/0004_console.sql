-- The developer console: accounts, their one-time links (email verification, password reset) and console
-- sessions; the partner program (applications, agreement versions, signatures); organization members and
-- invitations. Every secret (password, link token, refresh token) is stored only as a hash. Forward-only.

create table developer_accounts (
  id bigint generated always as identity constraint developer_accounts__id__pkey primary key,
  -- Lowercase; one account per address.
  email text not null constraint developer_accounts__email__key unique,
  password_hash text not null,
  verified_at timestamptz,
  suspended_at timestamptz,
  created_at timestamptz not null default now()
);

-- Single-use links mailed to an account: SHA-256 of the random token; used_at is set by one conditional write.
create table developer_links (
  token_hash text constraint developer_links__token_hash__pkey primary key,
  account_id bigint not null constraint developer_links__account_id__fkey references developer_accounts (id),
  purpose text not null constraint developer_links__purpose__check check (purpose in ('VERIFY_EMAIL', 'RESET_PASSWORD')),
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index developer_links__account_id__idx on developer_links (account_id);

-- A console session family: every refresh token of one sign-in. Revoking it ends them all (and its access tokens).
create table console_sessions (
  id text constraint console_sessions__id__pkey primary key,
  account_id bigint not null constraint console_sessions__account_id__fkey references developer_accounts (id),
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index console_sessions__account_id__idx on console_sessions (account_id);

create table console_refresh_tokens (
  token_hash text constraint console_refresh_tokens__token_hash__pkey primary key,
  session_id text not null constraint console_refresh_tokens__session_id__fkey references console_sessions (id),
  expires_at timestamptz not null,
  -- Set by the one conditional write that rotates it; a second presentation finds it set.
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create index console_refresh_tokens__session_id__idx on console_refresh_tokens (session_id);

create table program_applications (
  id bigint generated always as identity constraint program_applications__id__pkey primary key,
  account_id bigint not null constraint program_applications__account_id__fkey references developer_accounts (id),
  company_name text not null,
  website text not null default '',
  use_case text not null default '',
  state text not null default 'PENDING'
    constraint program_applications__state__check check (state in ('PENDING', 'APPROVED', 'DECLINED')),
  created_at timestamptz not null default now(),
  decided_at timestamptz
);
-- One pending application per account, also under parallel submissions.
create unique index program_applications__account_id__pending__key on program_applications (account_id) where state = 'PENDING';

-- The active version is the newest published one.
create table agreement_versions (
  version integer constraint agreement_versions__version__pkey primary key,
  title text not null,
  url text not null,
  published_at timestamptz not null default now()
);

create table agreement_signatures (
  account_id bigint not null constraint agreement_signatures__account_id__fkey references developer_accounts (id),
  version integer not null constraint agreement_signatures__version__fkey references agreement_versions (version),
  signed_at timestamptz not null default now(),
  constraint agreement_signatures__account_id_version__pkey primary key (account_id, version)
);

create table organization_members (
  organization_id bigint not null constraint organization_members__organization_id__fkey references organizations (id),
  account_id bigint not null constraint organization_members__account_id__fkey references developer_accounts (id),
  role text not null constraint organization_members__role__check check (role in ('OWNER', 'ADMIN', 'DEVELOPER', 'VIEWER')),
  created_at timestamptz not null default now(),
  constraint organization_members__organization_id_account_id__pkey primary key (organization_id, account_id)
);
create index organization_members__account_id__idx on organization_members (account_id);
-- Exactly one owner per organization.
create unique index organization_members__organization_id__owner__key on organization_members (organization_id) where role = 'OWNER';

create table organization_invitations (
  id bigint generated always as identity constraint organization_invitations__id__pkey primary key,
  token_hash text not null constraint organization_invitations__token_hash__key unique,
  organization_id bigint not null constraint organization_invitations__organization_id__fkey references organizations (id),
  email text not null,
  role text not null constraint organization_invitations__role__check check (role in ('ADMIN', 'DEVELOPER', 'VIEWER')),
  invited_by bigint not null constraint organization_invitations__invited_by__fkey references developer_accounts (id),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by bigint constraint organization_invitations__accepted_by__fkey references developer_accounts (id),
  created_at timestamptz not null default now()
);
create index organization_invitations__organization_id__idx on organization_invitations (organization_id);
