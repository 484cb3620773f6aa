-- A region's business data, first cut. Runs once per region schema with search_path set to it, so names here
-- are unqualified. Every row carries company_id: a merchant's data lives in exactly one region.
-- Forward-only: never edit this file once merged; add 0002_... instead.

create table stores (
  id bigint generated always as identity constraint stores__id__pkey primary key,
  company_id bigint not null,
  name text not null,
  created_at timestamptz not null default now(),
  constraint stores__company_id_name__key unique (company_id, name),
  -- Target of the composite foreign keys below, so a row can only point at its own company's store.
  constraint stores__company_id_id__key unique (company_id, id)
);

create table employees (
  id bigint generated always as identity constraint employees__id__pkey primary key,
  company_id bigint not null,
  name text not null,
  email text,
  created_at timestamptz not null default now(),
  constraint employees__company_id_id__key unique (company_id, id)
);

create table categories (
  id bigint generated always as identity constraint categories__id__pkey primary key,
  company_id bigint not null,
  name text not null,
  code text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint categories__company_id_name__key unique (company_id, name),
  constraint categories__company_id_code__key unique (company_id, code),
  constraint categories__company_id_id__key unique (company_id, id)
);

create table items (
  id bigint generated always as identity constraint items__id__pkey primary key,
  company_id bigint not null,
  category_id bigint,
  name text not null,
  code text,
  barcode text,
  price_minor bigint not null constraint items__price_minor__check check (price_minor >= 0),
  currency char(3) not null constraint items__currency__check check (currency ~ '^[A-Z]{3}$'),
  created_by_employee_id bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint items__company_id_barcode__key unique (company_id, barcode),
  constraint items__company_id_code__key unique (company_id, code),
  constraint items__company_id_category_id__fkey foreign key (company_id, category_id)
    references categories (company_id, id),
  constraint items__company_id_created_by_employee_id__fkey foreign key (company_id, created_by_employee_id)
    references employees (company_id, id)
);
-- List order and keyset paging within one company.
create index items__company_id_id__idx on items (company_id, id);

create table online_orders (
  id bigint generated always as identity constraint online_orders__id__pkey primary key,
  company_id bigint not null,
  store_id bigint not null,
  status text not null,
  total_minor bigint not null,
  currency char(3) not null constraint online_orders__currency__check check (currency ~ '^[A-Z]{3}$'),
  placed_at timestamptz not null,
  lines jsonb not null default '[]',
  constraint online_orders__company_id_store_id__fkey foreign key (company_id, store_id)
    references stores (company_id, id)
);
create index online_orders__company_id_placed_at__idx on online_orders (company_id, placed_at);

create table sales (
  id bigint generated always as identity constraint sales__id__pkey primary key,
  company_id bigint not null,
  store_id bigint not null,
  sold_at timestamptz not null,
  total_minor bigint not null,
  item_count integer not null constraint sales__item_count__check check (item_count >= 0),
  constraint sales__company_id_store_id__fkey foreign key (company_id, store_id) references stores (company_id, id)
);
-- Daily-sales reports scan one company over a date window.
create index sales__company_id_sold_at__idx on sales (company_id, sold_at);
