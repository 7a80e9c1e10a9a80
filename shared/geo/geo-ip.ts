import { isIP } from 'node:net';
import type { Lookup } from 'geoip-lite';

/**
 * The IP location database (geoip-lite, GeoLite data shipped in the package). It reads about 140 MB
 * synchronously when first required, so it is loaded on the first lookup, once per process, and never
 * by processes that do no lookups (workers, the CLI).
 */
let db: { lookup(ip: string): Lookup | null } | undefined;
function database() {
  db ??= require('geoip-lite') as { lookup(ip: string): Lookup | null };
  return db;
}

export interface IpLocation {
  country: string | null;
  region: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
  timezone: string | null;
}

/** `::ffff:10.0.0.1` is the IPv4 address 10.0.0.1 (a dual-stack socket's view of an IPv4 client). */
export function normalizeIp(raw: string): string | null {
  const ip = raw.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1]!;
  return isIP(ip) ? ip.toLowerCase() : null;
}

const blank = (s: string | undefined) => (s ? s : null);

/** The location of a valid IP address, every field null when the database does not know it. */
export function locateIp(ip: string): IpLocation {
  const hit = database().lookup(ip);
  return {
    country: blank(hit?.country),
    region: blank(hit?.region),
    city: blank(hit?.city),
    latitude: hit?.ll?.[0] ?? null,
    longitude: hit?.ll?.[1] ?? null,
    timezone: blank(hit?.timezone),
  };
}
