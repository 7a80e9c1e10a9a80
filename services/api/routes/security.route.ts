import type { RouteDef } from '../http/route';

export const securityRoutes: RouteDef[] = [];
