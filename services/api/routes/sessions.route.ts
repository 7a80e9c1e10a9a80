import type { RouteDef } from '../http/route';

export const sessionsRoutes: RouteDef[] = [];
