import { z } from 'zod';
import { sessionDto } from '../../../shared/dto/sorting.dto';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { endOrRenewSession, listConnectedSessions, startSession } from '../use-cases/sorting/sessions.use-case';

const wallParams = z.object({ id: idParam.describe('Wall id') });
const sessionParams = z.object({ id: idParam.describe('Wall id'), token: z.string().min(1).max(200).describe('Session token') });
/** What renew and stop share: one session, addressed by wall and token. */
const ONE_SESSION = {
  tags: ['Sorter sessions'],
  access: ['Sorter'] as const,
  params: sessionParams,
  response: sessionDto,
  errors: ['not-found', 'session-ended', 'forbidden'],
};

export const sessionsRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/walls/{id}/sessions',
    leavesWallViews: true,
    operationId: 'StartSorterSession',
    summary: "Connect to a wall as a sorter: returns the session token and the sorter's color",
    description:
      "Ends the caller's earlier session on this wall (endReason Replaced). On a PicklistSort wall a picklistId of an Open picklist is required.",
    tags: ['Sorter sessions'],
    access: ['Sorter'],
    requiresSubscription: true,
    params: wallParams,
    body: z
      .object({
        picklistId: z
          .number()
          .int()
          .positive()
          .nullable()
          .optional()
          .describe('Sort only the orders of this Open picklist; required on a PicklistSort wall. The body may be absent.'),
      })
      .strict(),
    bodyOptional: true,
    response: sessionDto,
    errors: ['not-found', 'sorter-limit-reached', 'picklist-not-open', 'picklist-required', 'wall-inactive', 'service-unavailable', 'command-timeout'],
    handler: ({ em, deps, auth, params, body }) => startSession(em, deps.commands, auth, params.id, body?.picklistId ?? null),
  }),
  defineRoute({
    method: 'put',
    path: '/walls/{id}/sessions/{token}',
    leavesWallViews: true,
    operationId: 'RenewSorterSession',
    summary: 'Renew a session: its expiry moves to now + the idle timeout (8 hours)',
    description:
      'Every scan, confirm, cancel and swap renews the session too. Only its owner, or a Manager or Admin, may renew it (403). ' +
      'An ended session answers 409 session-ended.',
    ...ONE_SESSION,
    requiresSubscription: true,
    handler: ({ em, deps, auth, params }) => endOrRenewSession(em, deps.commands, auth, 'session.renew', params.id, params.token),
  }),
  defineRoute({
    method: 'delete',
    path: '/walls/{id}/sessions/{token}',
    leavesWallViews: true,
    operationId: 'StopSorterSession',
    summary: "Stop a session (the sorter's own), or disconnect another sorter's (Manager, Admin)",
    description:
      'Ended by its owner: endReason Stopped; by a Manager or Admin on another employee\'s session: Disconnected; anyone else gets 403. ' +
      'Pending scans of the session stay pending. Ending a session that has ended already answers 409 session-ended; sorter apps need not show it.',
    ...ONE_SESSION,
    handler: ({ em, deps, auth, params }) => endOrRenewSession(em, deps.commands, auth, 'session.stop', params.id, params.token),
  }),
  defineRoute({
    method: 'get',
    path: '/walls/{id}/sessions',
    operationId: 'ListSorterSessions',
    summary: 'List the connected sessions of a wall',
    description: 'Oldest first. Sessions end by a stop, a newer connection of the same employee, a Manager, or 8 hours without activity.',
    tags: ['Sorter sessions'],
    access: ['Manager'],
    params: wallParams,
    response: z.array(sessionDto),
    errors: ['not-found'],
    handler: ({ em, auth, params }) => listConnectedSessions(em, auth.clientId, params.id),
  }),
];
