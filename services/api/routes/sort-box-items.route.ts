import type { RouteDef } from '../http/route';

export const sortBoxItemsRoutes: RouteDef[] = [];
