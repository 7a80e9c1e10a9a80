import { query } from '../../shared/db/named-sql';
import type { SorterColor } from '../../shared/domain/colors';
import type { PendingState, SlotState, WallMode } from '../../shared/lights/light-model';

/* The light gateway's statements (docs/lights.md), on the worker kinds' pool (runtime.workerSql). */

export interface WallStateRow {
  wallId: number;
  clientId: number;
  slots: SlotState[];
  pending: PendingState[];
  mode: WallMode | null;
  /** The outbox id of the wall's last event of its command order that the read holds ('0': none). */
  through: string;
}

/** The event types written outside a wall's command order (their outbox ids are not in its commit order). */
const OUTSIDE_TYPES = `('lights.mode', 'lights.controller', 'lights.button')`;

/**
 * The light state of each wall named: its slots by position, its pending scans (through the partial
 * index of pending items) with their slot and color, its light mode, and the outbox id of the last
 * event of the wall's command order the read holds. The events after that id are the ones the state
 * does not hold yet. A wall that no longer exists has no row.
 *
 * That last id is read backwards along the outbox's (client_id, wall_id, id) index from the wall's
 * end, and the row found counts only if it is the wall's: a wall with no such event gets 0 from the
 * first row below it. Asked as `max(id) where client_id = … and wall_id = …`, PostgreSQL planned a
 * backward walk of the whole outbox's primary key instead (it cannot tell how rare a wall is from
 * inside the subquery), which reads every later event of every wall before it finds the wall's last
 * one: hundreds of milliseconds for a wall idle for a day on a floor's week of events.
 */
export const wallLightStates = query<{ wallIds: number[] }, WallStateRow>('lights-wall-states', `
select w.id as "wallId", w.client_id as "clientId",
       coalesce((select json_agg(json_build_object('serialNumber', b.serial_number, 'crc', b.crc, 'position', b.position, 'status', b.status)
                                 order by b.position)
                   from sort_box b where b.wall_id = w.id), '[]') as slots,
       -- An item carries its slot's crc (a swap moves both), so its slot is not read again per item.
       coalesce((select json_agg(json_build_object('id', i.id, 'crc', i.crc, 'color', i.color, 'units', i.units,
                                                   'createdAt', floor(extract(epoch from i.created_at) * 1000)))
                   from sort_box_item i
                  where i.wall_id = w.id and i.status = 'PendingConfirmation' and i.sort_box_id is not null), '[]') as pending,
       (select json_build_object('mode', m.mode, 'startedAt', floor(extract(epoch from m.started_at) * 1000),
                                 'until', floor(extract(epoch from m.until) * 1000))
          from wall_light_mode m where m.wall_id = w.id) as mode,
       coalesce((select case when o.client_id = w.client_id and o.wall_id = w.id then o.id end
                   from outbox_event o
                  where (o.client_id, o.wall_id) <= (w.client_id, w.id) and o.type not in ${OUTSIDE_TYPES}
                  order by o.client_id desc, o.wall_id desc, o.id desc
                  limit 1), 0)::text as through
  from wall w
 where w.id = any(:wallIds::int[])`);

/** Every wall that has slots: what a full resync sets. */
export const wallsWithSlots = query<Record<string, never>, { id: number }>('lights-walls-with-slots', `
select w.id from wall w where exists (select 1 from sort_box b where b.wall_id = w.id) order by w.id`);

/**
 * Every wall, with or without slots (a wall whose slots were all detached still has retained lights to
 * clear), and how many slots it has: what the sweep of stale retained lights reads, a few walls at a time.
 */
export const wallsToSweep = query<Record<string, never>, { id: number; slots: number }>('lights-walls-to-sweep', `
select w.id, (select count(*) from sort_box b where b.wall_id = w.id)::int as slots from wall w order by w.id`);

export interface ButtonSlotRow {
  wallId: number;
  crc: string;
  position: number;
  /** Its pending scans, oldest first. */
  pending: { id: number; userId: number; units: number; color: SorterColor; sku: string; requiresSerial: boolean }[];
  /** The wall's light mode in force, or null. */
  mode: WallMode['mode'] | null;
}

/** The slot a controller's serial number names in the client, with what a button press decides on. */
export const slotForButton = query<{ clientId: number; serialNumber: string }, ButtonSlotRow>('lights-slot-for-button', `
select b.wall_id as "wallId", b.crc, b.position,
       coalesce((select json_agg(json_build_object('id', i.id, 'userId', i.user_id, 'units', i.units, 'color', i.color,
                                           'sku', i.sku, 'requiresSerial', i.requires_serial) order by i.created_at, i.id)
                   from sort_box_item i
                  where i.wall_id = b.wall_id and i.sort_box_id = b.id and i.status = 'PendingConfirmation'), '[]') as pending,
       (select m.mode from wall_light_mode m where m.wall_id = b.wall_id and m.until > now()) as mode
  from sort_box b
 where b.client_id = :clientId and b.serial_number = :serialNumber`);

/** The walls holding any of the serial numbers (a controller's slots) in the client. */
export const wallsOfSerials = query<{ clientId: number; serialNumbers: string[] }, { wallId: number }>('lights-walls-of-serials', `
select distinct wall_id as "wallId" from sort_box where client_id = :clientId and serial_number = any(:serialNumbers::text[])`);

export interface ControllerRow {
  clientId: number;
  controllerId: string;
  driver: 'mqtt' | 'tcp';
  online: boolean;
  serialNumbers: string[];
  address: string | null;
  lastSeenAt: string | null;
}

/** A controller as the gateway knows it now: its state, its slots, when it was last heard of. */
export const upsertController = query<
  { clientId: number; controllerId: string; driver: string; online: boolean; serialNumbers: string[]; address: string | null; lastSeenAt: Date },
  never
>('lights-upsert-controller', `
insert into light_controller as c (client_id, controller_id, driver, online, serial_numbers, address, last_seen_at, changed_at)
values (:clientId, :controllerId, :driver, :online, :serialNumbers::text[], :address, :lastSeenAt, now())
on conflict (client_id, controller_id) do update
   set driver = excluded.driver, online = excluded.online, serial_numbers = excluded.serial_numbers, address = excluded.address,
       last_seen_at = greatest(c.last_seen_at, excluded.last_seen_at),
       changed_at = case when c.online is distinct from excluded.online then now() else c.changed_at end`);

/** The controllers the last gateway left online: the new one hears from them again or marks them offline. */
export const onlineControllers = query<Record<string, never>, ControllerRow>('lights-online-controllers', `
select client_id as "clientId", controller_id as "controllerId", driver, online, serial_numbers as "serialNumbers", address, last_seen_at as "lastSeenAt"
  from light_controller where online`);

/** Events of the gateway (lights.controller, lights.button: internal types) into the outbox, as one batch. */
export const insertLightsEvents = query<{ events: string }, never>('lights-insert-events', `
insert into outbox_event (event_id, client_id, wall_id, type, occurred_at, data)
select e."eventId"::uuid, e."clientId", e."wallId", e.type, e."occurredAt", e.data
  from jsonb_to_recordset(:events::jsonb) as e ("eventId" text, "clientId" int, "wallId" int, type text, "occurredAt" timestamptz, data jsonb)`);
