import type { RouteDef } from '../http/route';

export const wallsRoutes: RouteDef[] = [];
