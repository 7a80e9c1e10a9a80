import { timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../../../shared/logging/logger';
import { EMBEDDED_MQTT_USERS, embeddedMqttAcl, patternCovers, type EmbeddedMqttCredentials } from './mqtt-credentials';

/**
 * The in-process MQTT broker of `npm start` (docs/operations.md, "Embedded servers"): aedes on a TCP
 * listener, so the light gateway, the simulator's virtual controllers (and real controllers, when
 * EMBEDDED_MQTT_HOST opens it to the LAN) reach it as they would Mosquitto. Retained messages (the lights, the controllers' and the
 * gateway's status) are kept in `retainedFile` and published again at the next start; sessions and
 * queued QoS 1 messages live in memory only.
 *
 * No anonymous client: each signs in as one of the users of mqtt-credentials.ts (the light gateway,
 * the controllers) with the password kept in the data folder, and may publish and subscribe only as
 * that user's ACL says (as the compose Mosquitto's `mosquitto/acl`). Besides, it listens on `host`
 * (127.0.0.1 unless EMBEDDED_MQTT_HOST names another interface), takes publications only under
 * `topicPrefix/` and of at most MAX_PAYLOAD_BYTES, and keeps at most MAX_RETAINED retained messages
 * (MAX_RETAINED_BYTES in all). A client that publishes against a rule is disconnected (MQTT 3.1.1 has
 * no refusal of a publication) and its message goes nowhere; a subscription against the ACL is
 * refused (SUBACK 128).
 */
export interface EmbeddedMqttOptions {
  host: string;
  port: number;
  /** MQTT_TOPIC_PREFIX: the root of every topic the service and its controllers use. */
  topicPrefix: string;
  retainedFile: string;
  /** The users' passwords (mqtt-credentials.ts). */
  credentials: EmbeddedMqttCredentials;
  log: Logger;
  /** The limits on retained messages (MAX_RETAINED, MAX_RETAINED_BYTES unless given: tests give small ones). */
  maxRetained?: number;
  maxRetainedBytes?: number;
}

export interface EmbeddedMqtt {
  /** The address the service's processes use. */
  url: string;
  /** Retained messages restored from the file at start. */
  restored: number;
  stop(): Promise<void>;
}

interface StoredMessage {
  /** base64 */
  payload: string;
  qos: 0 | 1 | 2;
}

const SHARED_SUBSCRIPTION = /^\$share\/[^/#+]+\/(.+)$/;

/** Writes follow changes by this much, so a burst of light changes is one write. */
const WRITE_DELAY_MS = 500;

/** A light is ~150 bytes; a controller's status lists its slots' serial numbers (~1000 of `0x1A2B3C4D`). */
export const MAX_PAYLOAD_BYTES = 16 * 1024;
/** Two lights per slot: 10 000 slots, with room for the controllers' and the gateway's status. */
export const MAX_RETAINED = 25_000;
/** Topics and payloads of every retained message together (the file is rewritten whole after a change). */
export const MAX_RETAINED_BYTES = 16 * 1024 * 1024;

function readRetained(file: string, log: Logger): Record<string, StoredMessage> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, StoredMessage>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn({ file, err: (err as Error).message }, `the broker's retained messages in ${file} could not be read: starting without them`);
    return {};
  }
}

/** Where this machine's processes reach a listener on `host`. */
function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '' || host.startsWith('127.')) return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEmbeddedMqtt(opts: EmbeddedMqttOptions): Promise<EmbeddedMqtt> {
  const { host, port, topicPrefix, retainedFile, credentials, log, maxRetained = MAX_RETAINED, maxRetainedBytes = MAX_RETAINED_BYTES } = opts;
  const acl = embeddedMqttAcl(topicPrefix);
  const passwords = new Map<string, Buffer>(Object.entries(EMBEDDED_MQTT_USERS).map(([role, user]) => [user, Buffer.from(credentials[role as keyof typeof EMBEDDED_MQTT_USERS])]));
  /** The user each connected client signed in as. */
  const userOf = new WeakMap<object, string>();
  const may = (client: object | null, access: 'read' | 'write', topic: string) => {
    const user = client ? userOf.get(client) : undefined;
    return Boolean(user && acl[user]?.[access].some((pattern) => patternCovers(pattern, topic)));
  };
  mkdirSync(path.dirname(retainedFile), { recursive: true });
  // Loaded only here: the broker is not in the path of a deployment that names its own (MQTT_URL).
  const { Aedes } = await import('aedes').catch((err: NodeJS.ErrnoException) => {
    // aedes is an ES module, loaded with require() (this project compiles to CommonJS): Node 20.19 or later.
    if (err.code === 'ERR_REQUIRE_ESM') throw new Error(`the embedded MQTT broker needs Node 20.19 or later (this is ${process.version}): upgrade Node, or set MQTT_URL to a broker`);
    throw err;
  });
  const retained = readRetained(retainedFile, log);
  // Sizes as the limits count them: the topic's and the payload's bytes.
  const sizeOf = (topic: string, payloadBytes: number) => Buffer.byteLength(topic) + payloadBytes;
  let retainedBytes = 0;
  let retainedCount = 0;
  for (const [topic, m] of Object.entries(retained)) {
    retainedBytes += sizeOf(topic, Buffer.byteLength(m.payload, 'base64'));
    retainedCount += 1;
  }
  /** Why a client may not publish `packet`, or null. */
  const refusal = (client: object | null, packet: { topic: string; payload: Buffer | string; retain: boolean }): string | null => {
    if (!packet.topic.startsWith(`${topicPrefix}/`)) return `the topic is not under ${topicPrefix}/`;
    if (!may(client, 'write', packet.topic)) return 'its user may not publish there';
    const bytes = Buffer.byteLength(packet.payload);
    if (bytes > MAX_PAYLOAD_BYTES) return `the payload is ${bytes} bytes, more than ${MAX_PAYLOAD_BYTES}`;
    if (packet.retain && bytes > 0) {
      const before = retained[packet.topic];
      const count = retainedCount + (before ? 0 : 1);
      const total = retainedBytes - (before ? sizeOf(packet.topic, Buffer.byteLength(before.payload, 'base64')) : 0) + sizeOf(packet.topic, bytes);
      if (count > maxRetained || total > maxRetainedBytes) return `the broker keeps at most ${maxRetained} retained messages (${maxRetainedBytes} bytes)`;
    }
    return null;
  };
  const broker = await Aedes.createBroker({
    id: 'sorting-embedded',
    // Only the users of mqtt-credentials.ts, with their passwords (CONNACK 4 otherwise).
    authenticate: (client, username, password, callback) => {
      const expected = username ? passwords.get(username) : undefined;
      if (expected && password && password.length === expected.length && timingSafeEqual(password, expected)) {
        userOf.set(client, username!);
        return callback(null, true);
      }
      log.warn({ clientId: client?.id, user: username?.slice(0, 100) ?? null }, `embedded MQTT broker: a client refused (${username ? 'wrong user name or password' : 'anonymous'})`);
      callback(Object.assign(new Error('bad user name or password'), { returnCode: 4 }), false);
    },
    // Publications (and last wills) are refused outside the user's topics, above the size limit,
    // and as retained messages beyond the broker's limits.
    authorizePublish: (client, packet, callback) => {
      const why = refusal(client, packet);
      if (!why) return callback(null);
      log.warn({ clientId: client?.id, topic: packet.topic.slice(0, 200) }, `embedded MQTT broker: a publication refused (${why}); the client is disconnected`);
      callback(new Error(why));
    },
    // aedes has no shared subscriptions: `$share/<group>/<filter>` (the light gateway's buttons) is
    // taken as `<filter>`, so each member of a group gets every message. `npm start` runs one gateway.
    // A filter the user's ACL does not cover is refused (SUBACK 128), `#` included.
    authorizeSubscribe: (client, sub, callback) => {
      const shared = SHARED_SUBSCRIPTION.exec(sub.topic);
      const filter = shared ? shared[1]! : sub.topic;
      if (!may(client, 'read', filter)) {
        log.warn({ clientId: client?.id, filter: filter.slice(0, 200) }, 'embedded MQTT broker: a subscription refused (its user may not read there)');
        return callback(null, null);
      }
      callback(null, shared ? { ...sub, topic: filter } : sub);
    },
  });
  broker.on('clientError', (client, err) => log.debug({ clientId: client?.id, err: err.message }, 'embedded MQTT broker: client error'));
  let writeTimer: NodeJS.Timeout | undefined;
  const write = () => {
    clearTimeout(writeTimer);
    writeTimer = undefined;
    try {
      // A whole new file, then a rename: a crash mid-write leaves the previous one.
      writeFileSync(`${retainedFile}.tmp`, JSON.stringify(retained));
      renameSync(`${retainedFile}.tmp`, retainedFile);
    } catch (err) {
      log.warn({ file: retainedFile, err: (err as Error).message }, `the broker's retained messages could not be written to ${retainedFile}`);
    }
  };
  broker.on('publish', (packet) => {
    if (!packet.retain || packet.topic.startsWith('$SYS')) return;
    // An empty retained payload clears the topic's retained message (MQTT 3.3.1.3).
    const before = retained[packet.topic];
    if (before) {
      retainedBytes -= sizeOf(packet.topic, Buffer.byteLength(before.payload, 'base64'));
      retainedCount -= 1;
    }
    if (packet.payload.length === 0) delete retained[packet.topic];
    else {
      retained[packet.topic] = { payload: Buffer.from(packet.payload).toString('base64'), qos: packet.qos };
      retainedBytes += sizeOf(packet.topic, Buffer.byteLength(packet.payload));
      retainedCount += 1;
    }
    writeTimer ??= setTimeout(write, WRITE_DELAY_MS);
  });

  const topics = Object.entries(retained);
  for (const [topic, m] of topics) {
    await new Promise<void>((resolve, reject) =>
      broker.publish({ cmd: 'publish', topic, payload: Buffer.from(m.payload, 'base64'), qos: m.qos, retain: true, dup: false }, (err?: Error) =>
        err ? reject(err) : resolve(),
      ),
    );
  }

  const server = net.createServer(broker.handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`the embedded MQTT broker cannot listen on ${host}:${port}: the port is taken. Set MQTT_URL to the broker there, or EMBEDDED_MQTT_PORT to a free port`) : err),
    );
    server.listen(port, host, () => resolve());
  });
  server.on('error', (err) => log.error({ err }, `embedded MQTT broker: ${err.message}`));
  const flushOnExit = () => {
    if (writeTimer) write();
  };
  process.once('exit', flushOnExit);

  return {
    url: `mqtt://${connectHost(host)}:${port}`,
    restored: topics.length,
    async stop() {
      process.removeListener('exit', flushOnExit);
      // The listener stops taking connections; it has closed once the broker has ended every client's.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await closed;
      write();
    },
  };
}
