import { query } from '../../../shared/db/named-sql';
import type { IWall } from '../../../shared/db/entities';
import { COMMAND_REFUSED } from '../../../shared/events/command-refused';

/* The statements around every workflow command (workers/sorting/wall-command.ts). */

export interface LockedWallRow {
  id: number;
  client_id: number;
  name: string;
  is_active: boolean;
  max_sorters: number;
  warehouse_id: number | null;
  workflow: IWall['workflow'];
  /** This command's earlier answer (applied_command.result), when it was applied already. */
  prior: unknown;
}

// Locks the wall and, in the same round trip, looks for this command's earlier answer: a job handed
// out again while its first run is still going waits on the lock for that run to commit; it then finds
// the answer, or (its snapshot predating that commit) collides with the record (23505) and runs again.
export const lockWall = query<{ commandId: string; wallId: number; clientId: number }, LockedWallRow>('lock-wall', `
select w.id, w.client_id, w.name, w.is_active, w.max_sorters, w.warehouse_id, w.workflow,
       (select ac.result from applied_command ac where ac.command_id = :commandId::uuid) as prior
  from wall w where w.id = :wallId and w.client_id = :clientId for update of w`);

/** What records a command: its outbox events (NewOutboxEvent[] as JSON) and its applied_command row. */
export interface RecordParams {
  events: string;
  commandId: string;
  clientId: number;
  wallId: number;
  command: string;
  partition: number;
  jobId: number;
  /** The answer as JSON. */
  result: string;
  now: Date;
}

/**
 * The record as the last CTEs of a use-case's own last write (one round trip less), written only
 * when `gate` (an SQL condition over the earlier CTEs) holds: `with a as (…), ${recordCtes('true')} select …`.
 */
export function recordCtes(gate: string): string {
  return `recorded_events as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select e."eventId", e."clientId", e."wallId", e.type, e."occurredAt", e.data
    from jsonb_to_recordset(:events::jsonb) as e("eventId" uuid, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)
   where ${gate}
  returning 1
), recorded_command as (
  insert into applied_command (command_id, client_id, wall_id, name, partition, job_id, result, applied_at)
  select :commandId::uuid, :clientId::int, :wallId::int, :command::text, :partition::int, :jobId::bigint, :result::jsonb, :now::timestamptz
   where ${gate}
  returning 1
)`;
}

/** The record alone, for a command whose last write did not carry it (or that wrote nothing). */
export const recordCommand = query<RecordParams>('record-command', `
with ${recordCtes('true')}
select 1`);

// A refusal's command.refused event, in a transaction of its own; once per command id.
export const recordRefusal = query<{ eventId: string; clientId: number; wallId: number | null; data: string }>('record-refusal', `
insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
values (:eventId, :clientId, :wallId, '${COMMAND_REFUSED}', now(), :data::jsonb) on conflict (event_id) do nothing`);
