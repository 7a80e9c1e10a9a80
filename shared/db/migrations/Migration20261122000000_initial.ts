import { Migration } from '@mikro-orm/migrations';

/**
 * The initial schema, written by hand so that every invariant the sorting floor depends on is a
 * database constraint, not only application logic:
 * - an order sits in at most one slot (sort_box_order_uq);
 * - a wall never has two connected sessions of one user or one color (partial unique indexes);
 * - an order line is never confirmed or reserved beyond its quantity (order_item check).
 * Client-supplied ids (warehouses, orders, picklists) are unique per client, so their keys are
 * (client_id, id): two tenants may both have order 1001.
 */
export class Migration20261122000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table client (
  id serial primary key,
  name text not null,
  team text not null,
  created_at timestamptz not null default now()
);
create unique index client_team_uq on client (lower(team));

create table client_settings (
  client_id int primary key references client (id) on delete cascade,
  pin_hash text null,
  pin_length int not null default 0,
  pin_enforcement text not null default 'client' check (pin_enforcement in ('client', 'server')),
  sorting_enabled boolean not null default true,
  updated_at timestamptz not null default now()
);

create table employee (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  email text not null,
  first_name text not null,
  last_name text not null,
  roles text[] not null,
  password_hash text not null,
  is_active boolean not null default true,
  created_at timestamptz not null default now()
);
create unique index employee_email_uq on employee (lower(email));
create index employee_client_idx on employee (client_id);

create table warehouse (
  client_id int not null references client (id) on delete cascade,
  id int not null,
  name text not null,
  address text null,
  latitude double precision null,
  longitude double precision null,
  primary key (client_id, id)
);

create table product (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  sku text not null,
  title text not null,
  upc text null,
  aliases text[] not null default '{}',
  shadow_skus text[] not null default '{}',
  requires_transparency_code boolean not null default false,
  kit_components jsonb not null default '[]',
  site_price numeric(14, 4) null,
  stop_loss_price numeric(14, 4) null,
  channel_prices jsonb not null default '[]',
  updated_at timestamptz not null default now()
);
create unique index product_client_sku_uq on product (client_id, sku);

-- Every code a product answers to, upper-cased, so a scan resolves with one index lookup.
-- kind orders the contract's resolution: 1 sku, 2 upc, 3 shadow sku, 4 alias.
create table product_code (
  client_id int not null,
  code text not null,
  kind smallint not null check (kind between 1 and 4),
  product_id int not null references product (id) on delete cascade,
  primary key (client_id, code, kind, product_id)
);
create index product_code_product_idx on product_code (product_id);

create table orders (
  client_id int not null references client (id) on delete cascade,
  id int not null,
  warehouse_id int not null,
  order_date timestamptz not null,
  priority text not null default 'Normal' check (priority in ('Low', 'Normal', 'High', 'Critical')),
  priority_rank smallint not null default 1,
  is_drop_ship boolean not null default false,
  status text not null default 'Unshipped' check (status in ('Unshipped', 'Shipped')),
  ship_to jsonb not null,
  shipped_at timestamptz null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (client_id, id),
  foreign key (client_id, warehouse_id) references warehouse (client_id, id)
);
create index orders_unshipped_idx on orders (client_id, warehouse_id, order_date) where status = 'Unshipped';

create table order_item (
  id serial primary key,
  client_id int not null,
  order_id int not null,
  sku text not null,
  qty int not null check (qty > 0),
  confirmed_qty int not null default 0,
  pending_qty int not null default 0,
  bins text[] not null default '{}',
  foreign key (client_id, order_id) references orders (client_id, id) on delete cascade,
  constraint order_item_never_over_sorted check (confirmed_qty >= 0 and pending_qty >= 0 and confirmed_qty + pending_qty <= qty)
);
create unique index order_item_line_uq on order_item (client_id, order_id, sku);
-- The scan path's lookup: lines of a sku that still need units.
create index order_item_open_sku_idx on order_item (client_id, sku) where qty > confirmed_qty + pending_qty;

create table picklist (
  client_id int not null references client (id) on delete cascade,
  id int not null,
  status text not null check (status in ('Open', 'Closed')),
  updated_at timestamptz not null default now(),
  primary key (client_id, id)
);

create table picklist_order (
  client_id int not null,
  picklist_id int not null,
  order_id int not null,
  primary key (client_id, picklist_id, order_id),
  foreign key (client_id, picklist_id) references picklist (client_id, id) on delete cascade,
  foreign key (client_id, order_id) references orders (client_id, id) on delete cascade
);
create index picklist_order_order_idx on picklist_order (client_id, order_id);

create table wall (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  name text not null,
  is_active boolean not null default true,
  max_sorters smallint not null default 6 check (max_sorters between 1 and 6),
  warehouse_id int null,
  workflow text not null default 'FreeSort' check (workflow in ('FreeSort', 'PicklistSort')),
  flow_direction text not null default 'LeftToRight'
    check (flow_direction in ('LeftToRight', 'RightToLeft', 'TopToBottom', 'BottomToTop')),
  segment_rows int null,
  segment_columns int null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (client_id, warehouse_id) references warehouse (client_id, id)
);
create unique index wall_client_name_uq on wall (client_id, lower(name));

create table sort_box (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  wall_id int not null references wall (id) on delete cascade,
  serial_number text not null,
  crc char(8) not null,
  position int not null,
  status text not null default 'Empty' check (status in ('Empty', 'Sorting', 'Complete')),
  order_id int null,
  assigned_at timestamptz null,
  created_at timestamptz not null default now(),
  foreign key (client_id, order_id) references orders (client_id, id),
  constraint sort_box_order_matches_status check ((status = 'Empty') = (order_id is null))
);
create unique index sort_box_serial_uq on sort_box (client_id, serial_number);
create unique index sort_box_crc_uq on sort_box (client_id, crc);
create unique index sort_box_wall_position_uq on sort_box (wall_id, position);
-- An order sits in at most one slot of one wall at a time.
create unique index sort_box_order_uq on sort_box (client_id, order_id) where order_id is not null;

create table sorter_session (
  id serial primary key,
  token text not null,
  client_id int not null references client (id) on delete cascade,
  wall_id int not null references wall (id) on delete cascade,
  user_id int not null references employee (id),
  picklist_id int null,
  color text not null,
  status text not null default 'Connected' check (status in ('Connected', 'Ended')),
  started_at timestamptz not null default now(),
  last_activity_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ended_at timestamptz null,
  end_reason text null check (end_reason in ('Stopped', 'Replaced', 'Expired', 'Disconnected')),
  foreign key (client_id, picklist_id) references picklist (client_id, id)
);
create unique index sorter_session_token_uq on sorter_session (token);
create unique index sorter_session_wall_user_uq on sorter_session (wall_id, user_id) where status = 'Connected';
create unique index sorter_session_wall_color_uq on sorter_session (wall_id, color) where status = 'Connected';
create index sorter_session_expiry_idx on sorter_session (expires_at) where status = 'Connected';

create table sort_box_item (
  id serial primary key,
  client_id int not null references client (id) on delete cascade,
  wall_id int not null references wall (id) on delete cascade,
  -- Null once the slot is detached: a scan's history outlives its slot (stats, billing, audit).
  sort_box_id int null references sort_box (id) on delete set null,
  -- The slot's crc when the unit was placed (follows a swap), kept after the slot is detached.
  crc char(8) not null,
  order_id int not null,
  order_item_id int not null references order_item (id),
  product_id int not null references product (id),
  sku text not null,
  barcode text not null,
  barcode_input_method text not null default 'Scanned',
  user_id int not null references employee (id),
  session_id int not null references sorter_session (id),
  color text not null,
  units int not null default 1,
  confirmed_units int not null default 0,
  status text not null default 'PendingConfirmation' check (status in ('PendingConfirmation', 'Confirmed', 'Cancelled')),
  created_at timestamptz not null default now(),
  confirmed_at timestamptz null,
  cancelled_at timestamptz null,
  foreign key (client_id, order_id) references orders (client_id, id)
);
create index sort_box_item_slot_idx on sort_box_item (sort_box_id, order_id);
create index sort_box_item_order_idx on sort_box_item (client_id, order_id);
create index sort_box_item_created_idx on sort_box_item (client_id, created_at);

-- Events written in the same transaction as the change they describe (docs/api.md §8).
create table outbox_event (
  id bigserial primary key,
  event_id uuid not null,
  client_id int not null,
  wall_id int null,
  type text not null,
  occurred_at timestamptz not null default now(),
  data jsonb not null,
  published_at timestamptz null
);
create unique index outbox_event_event_id_uq on outbox_event (event_id);
create index outbox_event_unpublished_idx on outbox_event (id) where published_at is null;
create index outbox_event_wall_idx on outbox_event (client_id, wall_id, id);

create table audit_log (
  id bigserial primary key,
  client_id int not null references client (id) on delete cascade,
  event_id uuid null,
  occurred_at timestamptz not null default now(),
  type text not null,
  kind text not null check (kind in ('wall', 'sort-box', 'sort-box-item', 'session', 'license-plate', 'other')),
  wall_id int null,
  user_id int null,
  order_id int null,
  picklist_id int null,
  crc text null,
  barcode text null,
  sort_box_item_id int null,
  session_id int null,
  is_error boolean not null default false,
  is_license_plate boolean not null default false,
  message text not null,
  data jsonb not null default '{}'
);
create unique index audit_log_event_id_uq on audit_log (event_id);
create index audit_log_client_time_idx on audit_log (client_id, occurred_at desc, id desc);
create index audit_log_client_wall_idx on audit_log (client_id, wall_id, occurred_at desc);

-- The first answer to a request that carried an Idempotency-Key; a retry gets it back.
create table idempotency_record (
  client_id int not null references client (id) on delete cascade,
  idempotency_key text not null,
  operation text not null,
  request_hash text not null,
  status int not null,
  body jsonb not null,
  created_at timestamptz not null default now(),
  primary key (client_id, idempotency_key)
);
create index idempotency_record_created_idx on idempotency_record (created_at);

-- Every workflow command that changed something, written in its own transaction: a job that BullMQ
-- hands out again after a worker crash finds its answer here instead of applying twice. seq is the
-- order of application; job_id (BullMQ's per-queue counter, taken atomically on add) the order of arrival.
create table applied_command (
  command_id uuid primary key,
  seq bigserial not null,
  client_id int not null,
  wall_id int not null,
  name text not null,
  partition int not null,
  job_id bigint not null,
  result jsonb not null,
  applied_at timestamptz not null default now()
);
create unique index applied_command_seq_uq on applied_command (seq);
create index applied_command_wall_idx on applied_command (wall_id, seq);
create index applied_command_applied_idx on applied_command (applied_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists applied_command, idempotency_record, audit_log, outbox_event, sort_box_item, sorter_session, sort_box, wall,
  picklist_order, picklist, order_item, orders, product_code, product, warehouse, employee, client_settings, client cascade;
`);
  }
}
