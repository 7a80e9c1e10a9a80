import { query } from '../../../../shared/db/named-sql';

/* GET /walls/{id}/lights and the light modes (docs/api.md §5, docs/lights.md). */

export interface SlotRef {
  serialNumber: string;
  crc: string;
  position: number;
}

export interface WallLightsRow {
  wallId: number;
  mode: { mode: 'test' | 'show-address'; startedAt: string; until: string; userId: number | null } | null;
  controllers: { id: string; driver: 'mqtt' | 'tcp'; online: boolean; address: string | null; lastSeenAt: string | null; changedAt: string; slots: SlotRef[] }[];
  uncovered: SlotRef[];
}

/**
 * The wall's light mode in force, the controllers that drive any of its slots (through the GIN index
 * of their serial numbers) with those slots, and the slots no controller has announced.
 */
export const wallLights = query<{ clientId: number; wallId: number }, WallLightsRow>('wall-lights', `
with slots as (
  select b.serial_number, b.crc, b.position from sort_box b join wall w on w.id = b.wall_id
   where w.id = :wallId and w.client_id = :clientId
), controllers as (
  select c.* from light_controller c
   where c.client_id = :clientId and c.serial_numbers && (select coalesce(array_agg(serial_number), '{}') from slots)
)
select w.id as "wallId",
       (select json_build_object('mode', m.mode, 'startedAt', m.started_at, 'until', m.until, 'userId', m.user_id)
          from wall_light_mode m where m.wall_id = w.id and m.until > now()) as mode,
       coalesce((select json_agg(json_build_object('id', c.controller_id, 'driver', c.driver, 'online', c.online, 'address', c.address,
                                                   'lastSeenAt', c.last_seen_at, 'changedAt', c.changed_at,
                                                   'slots', (select json_agg(json_build_object('serialNumber', s.serial_number, 'crc', s.crc, 'position', s.position)
                                                                             order by s.position)
                                                               from slots s where s.serial_number = any(c.serial_numbers)))
                                 order by c.controller_id)
                   from controllers c), '[]') as controllers,
       coalesce((select json_agg(json_build_object('serialNumber', s.serial_number, 'crc', s.crc, 'position', s.position) order by s.position)
                   from slots s where not exists (select 1 from controllers c where s.serial_number = any(c.serial_numbers))), '[]') as uncovered
  from wall w
 where w.id = :wallId and w.client_id = :clientId`);

/**
 * Starts a mode (replacing one in force) and writes its `lights.mode` event, in one statement. `data`:
 * the event's data as JSON, typed by its schema where it is built (wall-lights.use-case.ts); the row
 * takes the same mode, times and user.
 */
export const startLightMode = query<
  { clientId: number; wallId: number; mode: string; startedAt: string; until: string; userId: number; eventId: string; data: string },
  { startedAt: string; until: string }
>('wall-lights-start-mode', `
with m as (
  insert into wall_light_mode (wall_id, client_id, mode, started_at, until, user_id)
  select w.id, w.client_id, :mode, :startedAt::timestamptz, :until::timestamptz, :userId from wall w where w.id = :wallId and w.client_id = :clientId
  on conflict (wall_id) do update set mode = excluded.mode, started_at = excluded.started_at, until = excluded.until, user_id = excluded.user_id
  returning wall_id, client_id, mode, started_at, until, user_id
), e as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select :eventId::uuid, m.client_id, m.wall_id, 'lights.mode', m.started_at, :data::jsonb from m
)
select started_at as "startedAt", until from m`);

/** Ends the wall's mode (back to normal) and writes its `lights.mode` event (`data`, as above); no row when the wall is not the client's. */
export const endLightMode = query<{ clientId: number; wallId: number; eventId: string; data: string }, { wallId: number }>('wall-lights-end-mode', `
with w as (select id, client_id from wall where id = :wallId and client_id = :clientId),
d as (delete from wall_light_mode m using w where m.wall_id = w.id),
e as (
  insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
  select :eventId::uuid, w.client_id, w.id, 'lights.mode', now(), :data::jsonb from w
)
select id as "wallId" from w`);
