import type { RouteDef } from '../http/route';
import { tokenRoute } from './token.route';

/** Routes outside /api/v1 (the token service). */
export const rootRoutes: RouteDef[] = [tokenRoute];

/** Every operation under /api/v1. Each resource's file exports its list. */
export const apiRoutes: RouteDef[] = [];

/** The catalog price lookup, mounted under /catalog (or on CATALOG_PORT). */
export const catalogRoutes: RouteDef[] = [];
