import type { RouteDef } from '../http/route';

export const adminDataRoutes: RouteDef[] = [];
