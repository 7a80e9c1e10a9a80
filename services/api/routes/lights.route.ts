import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { endWallLightMode, getWallLights, startWallLightMode, wallLightsDto } from '../use-cases/lights/wall-lights.use-case';

const wallParams = z.object({ id: idParam.describe('Wall id') });
const TAGS = ['Lights'];

/** A light mode's length: a test is short; show-address lasts while someone walks the wall with a list. */
const modeBody = (defaultSeconds: number, maxSeconds: number) =>
  z
    .object({ seconds: z.number().int().min(1).max(maxSeconds).optional().describe(`How long, 1..${maxSeconds} seconds; default ${defaultSeconds}.`) })
    .strict();

export const lightsRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/walls/{id}/lights',
    operationId: 'GetWallLights',
    summary: "Read a wall's light mode and the controllers of its slots, online or offline",
    description: 'What the hub shows as device state: each controller that drives a slot of the wall (its slots, online or offline, last heard of), the slots no controller drives, and a light test or show-address mode in force.',
    tags: TAGS,
    access: 'authenticated',
    params: wallParams,
    response: wallLightsDto,
    errors: ['not-found'],
    handler: ({ em, auth, params, deps }) => getWallLights(em, auth.clientId, params.id, deps.config.DATABASE_PREPARED_STATEMENTS),
  }),
  defineRoute({
    method: 'post',
    path: '/walls/{id}/lights/test',
    operationId: 'StartWallLightTest',
    summary: 'Start a light test on a wall: every light steps through red, green, blue and white',
    action: 'start a light test',
    description: 'Every front and back light of the wall, digits all lit, for `seconds` (default 10), then back to what the wall shows. Replaces a mode in force. Sorting goes on meanwhile; its lights show again at the end.',
    tags: TAGS,
    access: ['Manager'],
    params: wallParams,
    body: modeBody(10, 600),
    bodyOptional: true,
    response: wallLightsDto,
    errors: ['not-found'],
    handler: ({ em, auth, params, body, deps }) => startWallLightMode(em, auth, params.id, 'test', body?.seconds ?? 10, deps.config.DATABASE_PREPARED_STATEMENTS),
  }),
  defineRoute({
    method: 'post',
    path: '/walls/{id}/lights/show-address',
    operationId: 'StartWallShowAddress',
    summary: 'Show each slot its position on its digits (white), to check the controller mapping',
    action: 'start the show-address mode',
    description: 'Every front and back light of the wall white with the slot position on its display, for `seconds` (default 60). A button pressed meanwhile flashes its slot white (a button test) and confirms nothing.',
    tags: TAGS,
    access: ['Manager'],
    params: wallParams,
    body: modeBody(60, 3600),
    bodyOptional: true,
    response: wallLightsDto,
    errors: ['not-found'],
    handler: ({ em, auth, params, body, deps }) => startWallLightMode(em, auth, params.id, 'show-address', body?.seconds ?? 60, deps.config.DATABASE_PREPARED_STATEMENTS),
  }),
  defineRoute({
    method: 'delete',
    path: '/walls/{id}/lights/mode',
    operationId: 'EndWallLightMode',
    summary: 'End a light test or show-address mode now',
    action: 'end a light mode',
    description: 'Every light of the wall shows the wall’s state again. Ending when no mode is in force changes nothing but still tells the hubs.',
    tags: TAGS,
    access: ['Manager'],
    params: wallParams,
    response: wallLightsDto,
    errors: ['not-found'],
    handler: ({ em, auth, params, deps }) => endWallLightMode(em, auth, params.id, deps.config.DATABASE_PREPARED_STATEMENTS),
  }),
];
