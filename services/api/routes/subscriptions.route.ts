import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { isSortingEnabled } from '../use-cases/settings/sorting-subscription.use-case';

export const subscriptionsRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/subscriptions/sorting',
    operationId: 'GetSortingSubscription',
    summary: "Whether your company's sorting subscription is enabled",
    description: 'true or false; a company starts enabled. While disabled, sessions, scans, confirms, cancels, swaps and releases answer 403 subscription-disabled. A client may treat a 404 here (an older server) as enabled.',
    tags: ['Subscriptions'],
    access: 'authenticated',
    response: z.boolean(),
    handler: ({ em, auth }) => isSortingEnabled(em, auth.clientId),
  }),
];
