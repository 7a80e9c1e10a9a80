import type { RouteDef } from '../http/route';

export const adminSettingsRoutes: RouteDef[] = [];
