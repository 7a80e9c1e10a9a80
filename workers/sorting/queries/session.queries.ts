import { query } from '../../../shared/db/named-sql';
import type { ISorterSession } from '../../../shared/db/entities';
import { recordCtes, type RecordParams } from './command.queries';

/* Sorter sessions (workers/sorting/use-cases/start-session.use-case.ts, end-session.use-case.ts; swap reads one too). */

/** A session as the use-cases see it: the entity's fields. */
export type SessionRecord = Pick<
  ISorterSession,
  'id' | 'token' | 'clientId' | 'wallId' | 'userId' | 'picklistId' | 'color' | 'status' | 'startedAt' | 'lastActivityAt' | 'expiresAt' | 'endedAt' | 'endReason'
>;

/** The columns of a SessionRecord from `sorter_session <alias>`. */
export function sessionColumns(a: string): string {
  return `${a}.id, ${a}.token, ${a}.client_id as "clientId", ${a}.wall_id as "wallId", ${a}.user_id as "userId", ${a}.picklist_id as "picklistId",
       ${a}.color, ${a}.status, ${a}.started_at as "startedAt", ${a}.last_activity_at as "lastActivityAt", ${a}.expires_at as "expiresAt",
       ${a}.ended_at as "endedAt", ${a}.end_reason as "endReason"`;
}

/** A session as JSON (dates are ISO strings). */
export type SessionJson = Omit<SessionRecord, 'startedAt' | 'lastActivityAt' | 'expiresAt' | 'endedAt'> &
  Record<'startedAt' | 'lastActivityAt' | 'expiresAt', string> & { endedAt: string | null };

export function sessionFromJson(j: SessionJson): SessionRecord {
  return {
    ...j,
    startedAt: new Date(j.startedAt),
    lastActivityAt: new Date(j.lastActivityAt),
    expiresAt: new Date(j.expiresAt),
    endedAt: j.endedAt === null ? null : new Date(j.endedAt),
  };
}

export const sessionByToken = query<{ token: string; clientId: number; wallId: number }, SessionRecord>('session-by-token', `
select ${sessionColumns('s')} from sorter_session s where s.token = :token and s.client_id = :clientId and s.wall_id = :wallId`);

export const sessionById = query<{ sessionId: number; clientId: number; wallId: number }, SessionRecord>('session-by-id', `
select ${sessionColumns('s')} from sorter_session s where s.id = :sessionId and s.client_id = :clientId and s.wall_id = :wallId`);

/** A session's new state (renewed or ended) and the command's record. */
export const sessionWrite = query<
  Pick<SessionRecord, 'status' | 'endReason' | 'endedAt' | 'lastActivityAt' | 'expiresAt'> & { sessionId: number } & RecordParams
>('session-write', `
with changed as (
  update sorter_session set status = :status, end_reason = :endReason, ended_at = :endedAt,
                            last_activity_at = :lastActivityAt, expires_at = :expiresAt
   where id = :sessionId
  returning 1
), ${recordCtes('true')}
select 1`);

/**
 * What a connection decides on: the picklist's status (null: none asked for, or not found), the
 * wall's connected sessions (oldest first), and the id the new session gets.
 */
export const sessionStartRead = query<
  { clientId: number; wallId: number; picklistId: number | null },
  { picklist_status: string | null; connected: SessionJson[]; session_id: number }
>('session-start-read', `
select (select p.status from picklist p where p.client_id = :clientId and p.id = :picklistId::int) as picklist_status,
       coalesce((select json_agg(c order by c."startedAt", c.id)
                   from (select ${sessionColumns('s')} from sorter_session s where s.wall_id = :wallId and s.status = 'Connected') c), '[]') as connected,
       nextval('sorter_session_id_seq')::int as session_id`);

// Names of connected sorters, for the sorter-limit-reached detail.
export const employeeNames = query<{ ids: number[] }, { id: number; first_name: string; last_name: string }>('employee-names', `
select id, first_name, last_name from employee where id = any(:ids::int[])`);

/**
 * The connection's writes and the record: the sorter's earlier sessions end first (`started` reads
 * `ended`, which makes it run first: the unique indexes on a wall's connected users and colors), then
 * the new session.
 */
export const sessionStartWrite = query<
  Pick<SessionRecord, 'token' | 'userId' | 'picklistId' | 'color' | 'status' | 'expiresAt'> & { sessionId: number; endedIds: number[]; endedStatus: string; endReasons: string[] } & RecordParams
>('session-start-write', `
with ended as (
  update sorter_session s set status = :endedStatus, end_reason = r.reason, ended_at = :now::timestamptz
    from unnest(:endedIds::int[], :endReasons::text[]) as r (id, reason)
   where s.id = r.id
  returning 1
), started as (
  insert into sorter_session (id, token, client_id, wall_id, user_id, picklist_id, color, status, started_at, last_activity_at, expires_at)
  select :sessionId::int, :token::text, :clientId::int, :wallId::int, :userId::int, :picklistId::int, :color::text, :status::text,
         :now::timestamptz, :now::timestamptz, :expiresAt::timestamptz
   where (select count(*) from ended) >= 0
  returning 1
), ${recordCtes('true')}
select 1`);
