import { Migration } from '@mikro-orm/migrations';

/**
 * One record per applied command: a keyed scan's Idempotency-Key and request hash are columns of its
 * `applied_command` record instead of a row of `idempotency_record` written beside it (one heap row
 * and two index entries fewer per keyed scan). The key's look-up and uniqueness move to a partial
 * unique index of the keyed records. Existing idempotency records are kept: each is matched to the
 * applied record its scan wrote in the same statement (same client, time, command and answer); one
 * whose applied record is gone is kept as a record of its own (a fresh command id, no wall, partition
 * or job: 0), so its key still replays its first answer until retention deletes it.
 */
export class Migration20261202011340_applied_command_idempotency extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table applied_command add column idempotency_key text, add column request_hash text;

update applied_command ac set idempotency_key = r.idempotency_key, request_hash = r.request_hash
  from idempotency_record r
 where ac.client_id = r.client_id and ac.applied_at = r.created_at and ac.name = r.operation and ac.result = r.body;

insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at, idempotency_key, request_hash)
select gen_random_uuid(), r.client_id, 0, r.operation, 0, 0, r.body, r.created_at, r.idempotency_key, r.request_hash
  from idempotency_record r
 where not exists (select 1 from applied_command ac where ac.client_id = r.client_id and ac.idempotency_key = r.idempotency_key);

create unique index applied_command_idempotency_uq on applied_command (client_id, idempotency_key) where idempotency_key is not null;

drop table idempotency_record;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create table idempotency_record (
  client_id int not null,
  idempotency_key text not null,
  operation text not null,
  request_hash text not null,
  status int not null,
  body jsonb not null,
  created_at timestamptz not null default now(),
  primary key (client_id, idempotency_key)
);
create index idempotency_record_created_brin on idempotency_record using brin (created_at);

insert into idempotency_record (client_id, idempotency_key, operation, request_hash, status, body, created_at)
select client_id, idempotency_key, name, request_hash, 200, result, applied_at from applied_command where idempotency_key is not null;

delete from applied_command where idempotency_key is not null and wall_id = 0 and partition = 0 and job_id = 0;
drop index applied_command_idempotency_uq;
alter table applied_command drop column idempotency_key, drop column request_hash;
`);
  }
}
