import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { OrmSql } from '../../../../shared/db/orm-sql';
import { uuidv7 } from '../../../../shared/db/time-ordered-uuid';
import { notFound } from '../../../../shared/errors/app-error';
import type { EventDataIn } from '../../../../shared/events/event-schemas';
import { endLightMode, startLightMode, wallLights } from './wall-lights.queries';

const slotRef = z.object({ serialNumber: z.string(), crc: z.string(), position: z.number().int() });

/** GET /walls/{id}/lights: the wall's light mode and the controllers of its slots (docs/lights.md). */
export const wallLightsDto = z.object({
  wallId: z.number().int(),
  mode: z.enum(['normal', 'test', 'show-address']).describe('normal, or the light test or the show-address mode in force'),
  modeStartedAt: z.string().nullable(),
  modeUntil: z.string().nullable().describe('When the light test or show-address mode ends by itself; null in normal mode'),
  controllers: z
    .array(
      z.object({
        id: z.string().describe("The controller's id, as it names itself (MQTT) or as LIGHTS_TCP_CONTROLLERS names it"),
        driver: z.enum(['mqtt', 'tcp']),
        online: z.boolean(),
        address: z.string().nullable().describe('host:port of a TCP controller'),
        lastSeenAt: z.string().nullable(),
        changedAt: z.string().describe('When it last went online or offline'),
        slots: z.array(slotRef).describe('The slots of this wall it drives, by position'),
      }),
    )
    .describe('Every controller known to drive a slot of this wall, online or not'),
  slotsWithoutController: z.array(slotRef).describe('Slots of the wall no controller has announced: no light shows them'),
});
export type WallLightsDto = z.infer<typeof wallLightsDto>;

const iso = (v: string | null) => (v === null ? null : new Date(v).toISOString());

export async function getWallLights(em: EntityManager, clientId: number, wallId: number, prepared: boolean): Promise<WallLightsDto> {
  const [row] = await wallLights(OrmSql.of(em, prepared), { clientId, wallId });
  if (!row) throw notFound(`Wall ${wallId}`);
  return {
    wallId: row.wallId,
    mode: row.mode?.mode ?? 'normal',
    modeStartedAt: iso(row.mode?.startedAt ?? null),
    modeUntil: iso(row.mode?.until ?? null),
    controllers: row.controllers.map((c) => ({ ...c, lastSeenAt: iso(c.lastSeenAt), changedAt: iso(c.changedAt)! })),
    slotsWithoutController: row.uncovered,
  };
}

/**
 * POST /walls/{id}/lights/test and /show-address: the mode for `seconds` (docs/lights.md "Modes"); the
 * gateway gets its `lights.mode` event and sets every light of the wall, then normal again by itself.
 */
export async function startWallLightMode(
  em: EntityManager,
  auth: { clientId: number; employeeId: number },
  wallId: number,
  mode: 'test' | 'show-address',
  seconds: number,
  prepared: boolean,
): Promise<WallLightsDto> {
  const now = Date.now();
  const [startedAt, until] = [new Date(now).toISOString(), new Date(now + seconds * 1000).toISOString()];
  const data: EventDataIn<'lights.mode'> = { mode, startedAt, until, userId: auth.employeeId };
  const [row] = await startLightMode(OrmSql.of(em, prepared), { clientId: auth.clientId, wallId, mode, startedAt, until, userId: auth.employeeId, eventId: uuidv7(), data: JSON.stringify(data) });
  if (!row) throw notFound(`Wall ${wallId}`);
  return getWallLights(em, auth.clientId, wallId, prepared);
}

/** DELETE /walls/{id}/lights/mode: every light of the wall shows its state again now. */
export async function endWallLightMode(em: EntityManager, auth: { clientId: number; employeeId: number }, wallId: number, prepared: boolean): Promise<WallLightsDto> {
  const data: EventDataIn<'lights.mode'> = { mode: 'normal', startedAt: null, until: null, userId: auth.employeeId };
  const [row] = await endLightMode(OrmSql.of(em, prepared), { clientId: auth.clientId, wallId, eventId: uuidv7(), data: JSON.stringify(data) });
  if (!row) throw notFound(`Wall ${wallId}`);
  return getWallLights(em, auth.clientId, wallId, prepared);
}
