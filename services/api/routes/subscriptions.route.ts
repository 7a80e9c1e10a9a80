import type { RouteDef } from '../http/route';

export const subscriptionsRoutes: RouteDef[] = [];
