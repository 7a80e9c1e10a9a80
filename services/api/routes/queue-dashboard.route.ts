import { z } from 'zod';
import { defineRoute } from '../http/route';
import { DASHBOARD_COOKIE, DASHBOARD_SESSION_SECONDS, mayOpenQueueDashboard, openQueueDashboard, QUEUE_DASHBOARD_PATH } from '../http/queue-dashboard';

/** Outside /api/v1, beside the dashboard it opens (services/api/http/queue-dashboard.ts says why a cookie). */
export const queueDashboardSessionRoute = defineRoute({
  method: 'post',
  path: `${QUEUE_DASHBOARD_PATH}/session`,
  operationId: 'OpenQueueDashboard',
  summary: 'Open the queue dashboard: sets a short-lived cookie for /admin/queues',
  description:
    `For the Admins listed in QUEUE_DASHBOARD_ADMINS (the dashboard shows every client's jobs). Sets the HttpOnly, SameSite=Strict cookie ` +
    `${DASHBOARD_COOKIE} for ${QUEUE_DASHBOARD_PATH}, valid ${DASHBOARD_SESSION_SECONDS / 60} minutes; then open ${QUEUE_DASHBOARD_PATH} in the same browser. ` +
    'The hub page does this with its "Queues" button.',
  tags: ['Operations'],
  access: ['Admin'],
  response: z.object({ url: z.string(), expiresIn: z.number().int() }),
  errors: ['forbidden'],
  handler: ({ req, res, deps, auth }) => openQueueDashboard(auth, deps, res, req.secure),
});


/** Whether the caller may open the dashboard, without opening it: the hub shows its Queues button only then. */
export const queueDashboardAccessRoute = defineRoute({
  method: 'get',
  path: `${QUEUE_DASHBOARD_PATH}/session`,
  operationId: 'GetQueueDashboardAccess',
  summary: 'Say whether you may open the queue dashboard (an Admin listed in QUEUE_DASHBOARD_ADMINS)',
  description: 'Sets no cookie. The hub page asks it to show its "Queues" button only to those who may use it.',
  tags: ['Operations'],
  access: 'authenticated',
  response: z.object({ allowed: z.boolean() }),
  handler: ({ deps, auth }) => ({ allowed: mayOpenQueueDashboard(auth, deps) }),
});
