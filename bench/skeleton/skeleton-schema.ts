import { Client as PgClient } from 'pg';

/*
 * The skeleton's database (bench/skeleton/README in docs/benchmarks.md, "The skeleton"): a wall with a
 * version, the items scanned into it and an outbox, each with a primary key and nothing else but the
 * one index a reader of a wall's items needs. Dropped and recreated by every run.
 */

export const SKELETON_WALLS = 10;

const SCHEMA = [
  'create table skel_wall (id int primary key, version bigint not null default 0)',
  `create table skel_item (
     id bigserial primary key, wall_id int not null references skel_wall (id), kind text not null, barcode text not null,
     wall_version bigint not null, created_at timestamptz not null default now())`,
  'create index skel_item_wall on skel_item (wall_id, id)',
  `create table skel_outbox (
     id bigserial primary key, wall_id int not null, wall_version bigint not null, type text not null,
     payload jsonb not null, created_at timestamptz not null default now())`,
];

/**
 * The skeleton's whole command: bump the wall's version, insert the item and the outbox row, in one
 * statement (one round trip, one implicit transaction). $1 wall, $2 kind, $3 barcode.
 */
export const SKELETON_COMMAND = `with w as (
    update skel_wall set version = version + 1 where id = $1 returning id, version
  ), i as (
    insert into skel_item (wall_id, kind, barcode, wall_version) select w.id, $2::text, $3::text, w.version from w returning id
  )
  insert into skel_outbox (wall_id, wall_version, type, payload)
  select w.id, w.version, $2::text, jsonb_build_object('item', i.id, 'barcode', $3::text) from w, i
  returning wall_version as version, (select id from i) as item`;

/** Drops and recreates the skeleton's database (its name must contain "bench"), creates the tables and the walls. */
export async function resetSkeletonDatabase(adminUrl: string, url: string): Promise<void> {
  const database = new URL(url).pathname.slice(1);
  if (!/^[a-z0-9_]*bench[a-z0-9_]*$/.test(database)) throw new Error(`refusing to reset ${database}: not a bench database`);
  const admin = new PgClient({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${database}" with (force)`);
    await admin.query(`create database "${database}"`);
  } finally {
    await admin.end();
  }
  const pg = new PgClient({ connectionString: url });
  await pg.connect();
  try {
    for (const statement of SCHEMA) await pg.query(statement);
    await pg.query('insert into skel_wall (id) select generate_series(1, $1::int)', [SKELETON_WALLS]);
    await pg.query('analyze');
  } finally {
    await pg.end();
  }
}
