import type { RouteDef } from '../http/route';

export const displaysRoutes: RouteDef[] = [];
