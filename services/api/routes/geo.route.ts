import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { geoLocationDto, locationByIp, locationByWall } from '../use-cases/geo/geo.use-case';

const tags = ['Geo'];

export const geoRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/geo/by-ip',
    operationId: 'GetLocationByIp',
    summary: 'Where an IP address is (GeoLite data shipped with the service)',
    description:
      'A missing or malformed address → 400. An address with no known location (private, loopback, unlisted) answers 200 with ' +
      'its ip and null location fields.',
    tags,
    access: 'authenticated',
    query: z.object({ ip: z.string().max(100).optional().describe('IPv4 or IPv6 address') }),
    response: geoLocationDto,
    errors: ['validation-failed'],
    handler: ({ query }) => locationByIp(query.ip, 'ip'),
  }),
  defineRoute({
    method: 'get',
    path: '/geo/by-ip/implicit',
    operationId: 'GetLocationByImplicitIp',
    summary: "Where the caller's own address is",
    description:
      "The caller's address as the service sees it: the connection's address, or X-Forwarded-For where the service trusts the " +
      'proxy that sent it (docs/operations.md). On a warehouse LAN this is usually a private address: 200 with null location fields.',
    tags,
    access: 'authenticated',
    response: geoLocationDto,
    errors: ['validation-failed'],
    handler: ({ req }) => locationByIp(req.ip, "The caller's address"),
  }),
  defineRoute({
    method: 'get',
    path: '/geo/by-wall-id',
    operationId: 'GetLocationByWallId',
    summary: "Where a wall is: its warehouse's coordinates",
    description: "404 when the wall is unknown, has no warehouse, or its warehouse has no latitude and longitude (load them with PUT /admin/warehouses).",
    tags,
    access: 'authenticated',
    query: z.object({ wallId: idParam.describe('Wall id') }),
    response: geoLocationDto,
    errors: ['validation-failed', 'not-found'],
    handler: ({ em, auth, query }) => locationByWall(em, auth.clientId, query.wallId),
  }),
];
