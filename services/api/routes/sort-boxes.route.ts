import type { RouteDef } from '../http/route';

export const sortBoxesRoutes: RouteDef[] = [];
