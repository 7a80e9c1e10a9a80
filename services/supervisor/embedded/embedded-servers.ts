import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../../shared/config/config';
import type { Logger } from '../../../shared/logging/logger';
import { portAnswers } from './port-probe';

/**
 * The servers `npm start` runs itself when none is named and none answers on the default port
 * (docs/operations.md, "Embedded servers"): PostgreSQL when `DATABASE_URL` is unset and nothing
 * answers on 127.0.0.1:`EMBEDDED_POSTGRES_PORT`, an MQTT broker when `MQTT_URL` is unset and nothing
 * answers on 127.0.0.1:`EMBEDDED_MQTT_PORT`. Their addresses go into this process's environment, which
 * every child inherits. Redis is never embedded.
 *
 * The embedded servers' modules (and their packages) are loaded only when one is started.
 */
export interface EmbeddedServers {
  /** What was started and where its data is; null when nothing was. */
  banner: string | null;
  /** Stops what was started (after the service's processes). */
  stop(): Promise<void>;
}

const unset = (v: string | undefined) => v === undefined || v.trim() === '';

/** A URL as the banner shows it: the password replaced. */
const redacted = (url: string) => url.replace(/^(postgres:\/\/[^:@/]+):[^@/]+@/, '$1:***@');

/**
 * The embedded PostgreSQL's password when its cluster is the one answering on the port (a supervisor
 * killed with SIGKILL left it running): its postmaster.pid is there. Another server gets no password.
 */
function runningClusterPassword(dataRoot: string): string | undefined {
  const dataDir = path.join(dataRoot, 'postgres');
  const passwordFile = path.join(dataRoot, 'postgres.password');
  if (!existsSync(path.join(dataDir, 'postmaster.pid')) || !existsSync(passwordFile)) return undefined;
  try {
    return readFileSync(passwordFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

interface Started {
  name: string;
  address: string;
  data: string;
  stop(): Promise<void>;
}

/** Whether Redis answers, for the banner: host and port only (the URL may carry a password). */
async function redisLine(redisUrl: string): Promise<string> {
  let host: string;
  let port: number;
  try {
    const url = new URL(redisUrl);
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return ' Redis is not embedded: it must run (REDIS_URL).';
    host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
    port = Number(url.port || 6379);
  } catch {
    return ' Redis is not embedded: it must run (REDIS_URL).';
  }
  const answers = await portAnswers(host, port);
  return answers
    ? ` Redis is not embedded: it answers at ${host}:${port}.`
    : ` Redis is not embedded and does NOT answer at ${host}:${port}: install and start Redis (the service waits for it).`;
}

export async function startEmbeddedServers(env: NodeJS.ProcessEnv, config: AppConfig, log: Logger): Promise<EmbeddedServers> {
  const none: EmbeddedServers = { banner: null, stop: async () => undefined };
  // Production names its servers: a missing DATABASE_URL there is a mistake to see, not to cover.
  if (!(config.EMBEDDED_SERVERS ?? config.NODE_ENV !== 'production')) return none;
  const dataRoot = path.resolve(config.EMBEDDED_DATA_DIR);
  const started: Started[] = [];
  const stopAll = async () => {
    for (const s of [...started].reverse()) {
      await s.stop().catch((err: unknown) => log.error({ err }, `stopping the embedded ${s.name}: ${(err as Error).message}`));
    }
  };

  try {
    if (unset(env.DATABASE_URL)) {
      const port = config.EMBEDDED_POSTGRES_PORT;
      // The database's name is the default URL's (DATABASE_URL is unset: config holds the default).
      const database = decodeURIComponent(new URL(config.DATABASE_URL).pathname.replace(/^\//, '')) || 'sorting';
      if (await portAnswers('127.0.0.1', port)) {
        const password = runningClusterPassword(dataRoot);
        env.DATABASE_URL = `postgres://postgres${password ? `:${encodeURIComponent(password)}` : ''}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
        log.info({ port }, `DATABASE_URL is unset and a server answers on 127.0.0.1:${port}: using it`);
      } else {
        const { startEmbeddedPostgres, postgresPaths } = await import('./embedded-postgres');
        const paths = postgresPaths(dataRoot);
        log.info({ port, dataDir: paths.dataDir }, `DATABASE_URL is unset and nothing answers on 127.0.0.1:${port}: starting the embedded PostgreSQL`);
        const pg = await startEmbeddedPostgres({ ...paths, port, osUser: config.EMBEDDED_POSTGRES_OS_USER, log });
        env.DATABASE_URL = pg.url(database);
        started.push({
          name: `PostgreSQL ${pg.version}`,
          address: `${redacted(env.DATABASE_URL)} (password in ${paths.passwordFile})`,
          data: `${paths.dataDir} (log ${paths.logFile})`,
          stop: () => pg.stop(),
        });
        log.info({ embedded: 'postgres', version: pg.version, port, pid: pg.pid, dataDir: paths.dataDir, logFile: paths.logFile }, `embedded PostgreSQL ${pg.version} started on 127.0.0.1:${port}`);
      }
    }
    if (unset(env.MQTT_URL)) {
      const port = config.EMBEDDED_MQTT_PORT;
      if (await portAnswers('127.0.0.1', port)) {
        env.MQTT_URL = `mqtt://127.0.0.1:${port}`;
        log.info({ port }, `MQTT_URL is unset and a broker answers on 127.0.0.1:${port}: using it`);
      } else {
        const { startEmbeddedMqtt } = await import('./embedded-mqtt');
        const { mqttCredentials, mqttCredentialsFile, mqttUrlAs } = await import('./mqtt-credentials');
        const retainedFile = path.join(dataRoot, 'mqtt', 'retained.json');
        const credentialsFile = mqttCredentialsFile(dataRoot);
        const credentials = mqttCredentials(credentialsFile);
        const host = config.EMBEDDED_MQTT_HOST;
        const mqtt = await startEmbeddedMqtt({ host, port, topicPrefix: config.MQTT_TOPIC_PREFIX, retainedFile, credentials, log });
        // The service's processes sign in as the gateway's user; the URL carries the password (never logged).
        env.MQTT_URL = mqttUrlAs(mqtt.url, 'service', credentials);
        const reach = host.startsWith('127.') || host === '::1' || host === 'localhost' ? 'this machine only' : 'the network';
        started.push({
          name: 'MQTT broker',
          address: `mqtt://${host}:${port} (${reach}; users and passwords in ${credentialsFile})`,
          data: `${retainedFile} (retained messages)`,
          stop: () => mqtt.stop(),
        });
        log.info({ embedded: 'mqtt', host, port, retainedFile, restored: mqtt.restored }, `embedded MQTT broker listening on ${host}:${port}`);
      }
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  if (!started.length) return none;

  const banner = [
    '',
    '==================================================================',
    ' Embedded servers (none was named and none answered on its default port):',
    ...started.flatMap((s) => [`   ${s.name.padEnd(20)} ${s.address}`, `   ${''.padEnd(20)} data: ${s.data}`]),
    ' They stop with the service and find their data again at the next start.',
    ' To use servers of your own, set DATABASE_URL and MQTT_URL (docs/operations.md, "Embedded servers").',
    await redisLine(config.REDIS_URL),
    '==================================================================',
  ].join('\n');
  return { banner, stop: stopAll };
}
