import type { RouteDef } from '../http/route';

export const ordersRoutes: RouteDef[] = [];
