import type { RouteDef } from '../http/route';

export const adminEmployeesRoutes: RouteDef[] = [];
