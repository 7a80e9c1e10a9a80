import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { Warehouse } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import { locateIp, normalizeIp } from '../../../../shared/geo/geo-ip';
import { findWall } from '../walls/wall-access';

export const geoLocationDto = z.object({
  ip: z.string().nullable().describe('The address looked up (IPv4-mapped IPv6 shown as IPv4); null for a wall'),
  country: z.string().nullable().describe('ISO 3166-1 alpha-2; null when unknown'),
  region: z.string().nullable(),
  city: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  timezone: z.string().nullable().describe('IANA time zone, e.g. Europe/London'),
  source: z.enum(['ip', 'wall']),
});
export type GeoLocation = z.infer<typeof geoLocationDto>;

/** GetLocationByIp / GetLocationByImplicitIp: an address the database does not know (private, loopback) answers nulls. */
export function locationByIp(raw: string | undefined, what: string): GeoLocation {
  const ip = raw === undefined ? null : normalizeIp(raw);
  if (!ip) {
    throw new AppError('validation-failed', `${what} '${raw ?? ''}' is not an IPv4 or IPv6 address.`, { errors: [{ path: 'ip', message: 'must be an IPv4 or IPv6 address' }] });
  }
  return { ip, ...locateIp(ip), source: 'ip' };
}

/** GetLocationByWallId: the coordinates of the wall's warehouse, as loaded with PUT /admin/warehouses. */
export async function locationByWall(em: EntityManager, clientId: number, wallId: number): Promise<GeoLocation> {
  const wall = await findWall(em, clientId, wallId);
  const load = 'load them with PUT /admin/warehouses (latitude and longitude)';
  if (wall.warehouseId == null) {
    throw new AppError('not-found', `Wall ${wallId} has no warehouse, so its location is unknown; set its warehouseId (PATCH /walls/${wallId}) to a warehouse with coordinates, or ${load}.`);
  }
  const wh = await em.findOne(Warehouse, { clientId, id: wall.warehouseId });
  if (!wh || wh.latitude == null || wh.longitude == null) {
    throw new AppError('not-found', `Warehouse ${wall.warehouseId} of wall ${wallId} has no coordinates; ${load}.`);
  }
  return { ip: null, country: null, region: null, city: null, latitude: Number(wh.latitude), longitude: Number(wh.longitude), timezone: null, source: 'wall' };
}
