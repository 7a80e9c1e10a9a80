import type { RouteDef } from '../http/route';

export const catalogRoutes: RouteDef[] = [];
