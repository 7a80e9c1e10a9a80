import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The users of the embedded MQTT broker (docs/lights.md, "Broker credentials"): the light gateway's and
 * the simulator's controllers', with random passwords made at the first start and kept in
 * `<EMBEDDED_DATA_DIR>/mqtt/credentials.json` (mode 0600), like the embedded PostgreSQL's password.
 * No module of aedes here: `npm run simulate` reads the file without loading the broker.
 */
export const EMBEDDED_MQTT_USERS = {
  /** The light gateway (every process of the service): every topic under the prefix. */
  service: 'sorting-service',
  /** Light controllers (the simulator's virtual ones): a controller's topics, of any wall. */
  controllers: 'sorting-controllers',
} as const;

export type EmbeddedMqttRole = keyof typeof EMBEDDED_MQTT_USERS;
export type EmbeddedMqttCredentials = Record<EmbeddedMqttRole, string>;

export const mqttCredentialsFile = (dataRoot: string) => path.join(dataRoot, 'mqtt', 'credentials.json');

const HEX = /^[0-9a-f]{32,}$/;

/** The passwords in `file`, or null when there is none (no embedded broker started here yet). */
export function readMqttCredentials(file: string): EmbeddedMqttCredentials | null {
  if (!existsSync(file)) return null;
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<string, unknown>>;
  const creds = { service: saved[EMBEDDED_MQTT_USERS.service], controllers: saved[EMBEDDED_MQTT_USERS.controllers] };
  if (!Object.values(creds).every((p) => typeof p === 'string' && HEX.test(p))) {
    throw new Error(`${file} does not hold the embedded MQTT broker's passwords: delete it (new ones are made at the next start)`);
  }
  return creds as EmbeddedMqttCredentials;
}

/** The passwords in `file`, made (and written, mode 0600) at the first start. */
export function mqttCredentials(file: string): EmbeddedMqttCredentials {
  const saved = readMqttCredentials(file);
  if (saved) return saved;
  const made: EmbeddedMqttCredentials = { service: randomBytes(24).toString('hex'), controllers: randomBytes(24).toString('hex') };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ [EMBEDDED_MQTT_USERS.service]: made.service, [EMBEDDED_MQTT_USERS.controllers]: made.controllers }, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  return made;
}

/** `url` signed in as `role` (the password percent-encoded: hex needs none, but a URL is a URL). */
export function mqttUrlAs(url: string, role: EmbeddedMqttRole, creds: EmbeddedMqttCredentials): string {
  const u = new URL(url);
  u.username = EMBEDDED_MQTT_USERS[role];
  u.password = creds[role];
  return u.toString().replace(/\/$/, '');
}

interface Grants {
  read: string[];
  write: string[];
}

/**
 * What each user may do, as the compose Mosquitto's `mosquitto/acl` says: the service every topic
 * under the prefix; a controller reads the lights and the gateway's state, and writes buttons, its
 * status and its heartbeat; it cannot light a slot, read another controller's presses or subscribe to
 * `#`.
 */
export function embeddedMqttAcl(prefix: string): Record<string, Grants> {
  return {
    [EMBEDDED_MQTT_USERS.service]: { read: [`${prefix}/#`], write: [`${prefix}/#`] },
    [EMBEDDED_MQTT_USERS.controllers]: {
      read: [`${prefix}/+/walls/+/slots/+/front`, `${prefix}/+/walls/+/slots/+/back`, `${prefix}/gateway/status`],
      write: [`${prefix}/+/walls/+/slots/+/button`, `${prefix}/+/controllers/+/status`, `${prefix}/+/controllers/+/heartbeat`],
    },
  };
}

/**
 * Whether ACL pattern `pattern` covers `filter` (a topic, or a subscription's filter with its own
 * wildcards): `#` covers the rest, `+` one level (also a `+` of the filter, never its `#`), a name only
 * itself.
 */
export function patternCovers(pattern: string, filter: string): boolean {
  const p = pattern.split('/');
  const f = filter.split('/');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '#') return true;
    if (i >= f.length) return false;
    if (f[i] === '#') return false;
    if (p[i] === '+') continue;
    if (p[i] !== f[i]) return false;
  }
  return p.length === f.length;
}
