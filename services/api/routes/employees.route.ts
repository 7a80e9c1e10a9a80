import type { RouteDef } from '../http/route';

export const employeesRoutes: RouteDef[] = [];
