import { isIP } from 'node:net';
import { z } from 'zod';
import { parseRedisUrl } from '../redis/connection';

const bool = z
  .union([z.boolean(), z.string()])
  .transform((v) => (typeof v === 'boolean' ? v : ['1', 'true', 'yes', 'on'].includes(v.toLowerCase())));

// Express's `trust proxy` names, or an IPv4/IPv6 address with an optional /prefix.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY: unset or empty → no proxy is trusted (X-Forwarded-For ignored); else a comma list. */
const trustProxy = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((e) => e.trim()).filter(Boolean))
  .refine((list) => list.every(isProxyEntry), {
    message: 'must be a comma list of proxy addresses, CIDRs (10.0.0.0/8) or loopback, linklocal, uniquelocal',
  });

// The seeded demo client's Admin (services/seed), whose password `npm start` prints anyway.
const DEV_DASHBOARD_ADMIN = 'admin@demo.local';

/**
 * Every setting of the service: its parsing, its default, and what it means (`.describe()`; `.meta()`
 * where the default needs words). The README's settings table is written from this by
 * `npm run docs:settings` (shared/config/settings-table.ts), and a unit test fails when they differ.
 */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('HTTP port of the API'),
  HOST: z.string().default('0.0.0.0').describe('interface the API listens on'),
  CATALOG_PORT: z.coerce.number().int().min(0).max(65535).optional()
    .describe('when set (and different from `PORT`), the catalog price lookup listens on its own port; otherwise it is served under `/catalog` on `PORT`'),
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional()
    .describe('when set (and different from `PORT`), `GET /healthz` and `GET /readyz` are also answered on a listener of their own, on a thread of its own, which neither a flood of client connections on `PORT` nor an overloaded event loop can hold up; point load balancer and orchestrator probes at it ([docs/operations.md](docs/operations.md#health))'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/sorting')
    .describe('PostgreSQL; the database is created if missing by `npm start`, `npm run migrate` and the CLI'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).default(10)
    .describe('connections per process (the pool never opens more)'),
  COMMAND_CONNECTIONS: z.coerce.number().int().min(1).default(2)
    .describe('connections a sorting process\'s wall actors read and write through (at most `DATABASE_POOL_MAX` − 1): while a wall\'s write waits for one and runs, the commands that reach the wall gather, and its next write takes them all in one statement and one commit. More run more writes at once on PostgreSQL\'s cores, each with its own commit; fewer gather more commands into each. Raise it where PostgreSQL has many cores and each sorting process holds many busy walls ([docs/scaling.md](docs/scaling.md))'),
  DATABASE_MAX_CONNECTIONS: z.coerce.number().int().min(1).optional()
    .describe('the deployment\'s total PostgreSQL connection budget; each process warns at start when `SERVICE_PROCESSES` × `DATABASE_POOL_MAX` exceeds it, or when the budget exceeds the server\'s `max_connections` − reserved ([docs/scaling.md](docs/scaling.md))'),
  SERVICE_PROCESSES: z.coerce.number().int().min(1).default(1)
    .describe('how many processes of the service (API and workers together) share the database: the input of that check'),
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000)
    .describe('how long a query waits for a free pool connection before it fails (a dependency outage: 503)'),
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(1500)
    .describe('how long the API and the sorting worker\'s commands wait for PostgreSQL to answer a statement or a new connection before it counts as an outage (503, a request never hangs on a server that stopped answering); the other workers, migrations and the CLI wait as long as it takes ([docs/operations.md](docs/operations.md#failures-and-outages))'),
  DATABASE_PREPARED_STATEMENTS: bool.default(true)
    .describe('the named plain SQL (the sorting worker\'s commands, the outbox relay, the audit and statistics consumers, webhook deliveries) as named prepared statements; `false` for plain parameterized queries, required behind PgBouncer < 1.21 in transaction mode ([docs/scaling.md](docs/scaling.md))'),
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .refine((url) => {
      try {
        parseRedisUrl(url);
        return true;
      } catch {
        return false;
      }
    }, 'must be redis://host:port, rediss://..., or redis+cluster://host:port,host:port,... for a Redis Cluster')
    .describe('Redis (command queues, reply channel, rate limits, the hubs\' live events; it holds no record of the event pipeline): `redis://` or `rediss://` for one server, `redis+cluster://host:port,host:port,...` (or `rediss+cluster://`, optional `user:password@`) for a Redis Cluster, naming one or more seed nodes'),
  QUEUE_PREFIX: z.string().min(1).regex(/^[^{}]+$/, 'must not contain { or }').default('sorting')
    .describe('prefix of every Redis key; lets several deployments share one Redis; no `{` `}` (a hash tag there would put every queue in one cluster slot)'),
  QUEUE_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(8)
    .describe('number (1..1024) of per-wall command queues (a wall always maps to the same one); change only with every process stopped and the queues drained'),
  COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).default(10000)
    .describe('how long the API waits for a worker\'s answer to a command'),
  WALL_VIEW_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000)
    .describe('how long an API process answers `GET /walls/{id}` from what it last read of a wall that has not changed since (a command of the wall, a change through the API and a lost Redis connection each drop it at once); the bound on how long a change made outside the service (SQL by hand) takes to show there. `0`: every read goes to PostgreSQL ([docs/architecture.md](docs/architecture.md#the-wall-view-cache))'),
  SORTING_LEASE_TTL_MS: z.coerce.number().int().min(500).default(10_000)
    .describe('how long a sorting process\'s hold on a command partition lasts without being extended (it extends it every fifth of that): the longest a dead process keeps its walls from the others. A process that stops hands its partitions back at once ([docs/operations.md](docs/operations.md#sorting-processes-and-their-partitions))'),
  READYZ_WAITS_FOR_PARTITIONS_MS: z.coerce.number().int().min(0).max(600_000).default(0)
    .describe('when the API starts, `GET /readyz` also waits until a sorting process holds every command partition, at most this long (`0`: it does not wait); `npm start` sets `10000` for its API, so the first commands after `/readyz` do not wait for the sorting workers to start ([docs/operations.md](docs/operations.md#health))'),
  SORTING_WORKERS: z.coerce.number().int().min(0).max(64).default(0)
    .describe('`npm start`: sorting worker processes; `0` = one per two cores (`os.availableParallelism()`), at least one'),
  API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1)
    .describe('`npm start`: API processes; one listens on its own socket; several share `PORT` as node cluster workers that each accept their own connections (`SCHED_NONE`)'),
  COMMAND_MAX_WAIT_MS: z.coerce.number().int().min(50).default(800)
    .describe('the API\'s one admission policy for commands, kept per command partition: a process admits a command that finishes work in hand (a confirm, a release) only while a command alone\'s time to its answer plus the commands it waits for on that partition (but the one in service), times the service time the sorting workers report, times the slowdown its answers show (what a command ahead really took: more on a saturated host, less where a wall\'s commands are written in groups), plus the API\'s own event loop delay, come within this time (the default leaves a fifth of a 1 s answer to the API\'s own work: accepting, parsing, answering) and the oldest has waited less; new work (a scan) only within half of it (4 per partition are always admitted, and a person\'s only command waiting unless the oldest has waited all of this time); otherwise 503 `service-unavailable` at once, with `Retry-After` drawn between once and twice the time the backlog needs to drain'),
  COMMAND_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(2000)
    .describe('the ceiling of that policy: never more commands waiting in one API process than this, whatever the estimates (a bound on memory)'),
  JWT_SECRET: z.string().min(16).optional()
    .describe('signing key of access tokens, at least 16 characters; **required** when `NODE_ENV=production`. Unset: the service makes its own random key on its first start and keeps it in the database (table `service_secret`), shared by all its processes and kept across restarts; no published secret ever signs a token').meta({ shownDefault: 'unset: a random key kept in the database' }),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).default(12 * 3600)
    .describe('lifetime of an access token').meta({ defaultNote: '12 h' }),
  PASSWORD_HASH_ROUNDS: z.coerce.number().int().min(4).max(20).default(14)
    .describe('scrypt cost for passwords and the PIN: log2 of N (r = 8, p = 1; 14 = 16 MiB, tens of ms on the thread pool). Hashes record their parameters, so a change applies to new hashes; older ones (and bcrypt hashes from before) are replaced at the next successful sign-in or PIN check'),
  TOKEN_RATE_LIMIT: z.coerce.number().int().min(1).default(10)
    .describe('failed sign-ins per user name within `TOKEN_RATE_WINDOW_MS` before `POST /token` answers 429'),
  TOKEN_RATE_WINDOW_MS: z.coerce.number().int().min(1000).default(5 * 60_000)
    .describe('the window of the sign-in limits (`TOKEN_RATE_LIMIT`, `TOKEN_RATE_LIMIT_PER_ADDRESS`)'),
  TOKEN_RATE_LIMIT_PER_ADDRESS: z.coerce.number().int().min(1).default(100)
    .describe('failed sign-ins per client address (any user names) in the same window before 429; a successful sign-in does not clear it'),
  TRUST_PROXY: trustProxy
    .describe('unset: `X-Forwarded-For` is ignored and the client address is the connection\'s. Behind a reverse proxy or load balancer: a comma list of the proxies\' addresses or CIDRs (`10.0.0.0/8,192.168.1.5`; also `loopback`, `linklocal`, `uniquelocal`) whose forwarded addresses are trusted (Express `trust proxy`)').meta({ shownDefault: 'unset' }),
  SEED_DEMO: bool.default(true).describe('seed the demo client when the database has no client'),
  SESSION_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(8 * 3600 * 1000)
    .describe('a sorter session without activity for this long ends (`Expired`)').meta({ defaultNote: '8 h' }),
  SESSION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000)
    .describe('how often the sweeper looks for idle sessions (and runs the retention)'),
  RECENT_ORDER_DAYS: z.coerce.number().int().min(1).default(30)
    .describe('what `recent=true` means in the order listings'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false).describe('allow webhooks to loopback and private addresses'),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1000)
    .describe('the outbox relay and the light gateway wake on PostgreSQL `NOTIFY`, this back-up poll covers a lost listener connection; the webhook senders look this often for deliveries other processes scheduled'),
  OUTBOX_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500)
    .describe('events the relay reads for the hubs in one statement; also the most events one consumer batch (audit, labels, webhooks; the statistics 4 times as many) reads'),
  OUTBOX_RELAY_INTERVAL_MS: z.coerce.number().int().min(0).max(1000).default(10)
    .describe('the relay moves its horizon at most this often while commits trickle in, so a busy floor\'s commits share a statement and a publish (at most this much later at the hubs); a full batch goes on at once'),
  OUTBOX_RELAY_DELAY_MS: z.coerce.number().int().min(0).max(1000).default(15)
    .describe('a commit\'s notification wakes the relay, which waits this long before its step: the command\'s answer goes out first (where cores are scarce, the relay\'s step and the hubs\' and lights\' work behind it would otherwise take the core the answer needs), and the commits of those moments join the step; the hubs and the lights get the events this much later'),
  OUTBOX_RELAY_BUSY_INTERVAL_MS: z.coerce.number().int().min(0).max(1000).default(30)
    .describe('while a step passes the events of several walls (a busy floor: 3 walls or more), the relay steps at most this often instead, so a step, its publish and the light gateway\'s batch cover more commits; the events of one or two walls keep `OUTBOX_RELAY_INTERVAL_MS`'),
  OUTBOX_CONSUMER_INTERVAL_MS: z.coerce.number().int().min(0).default(500)
    .describe('the audit, labels and webhooks consumers look this often for relayed events (fewer, larger batches; a full batch goes on at once), the statistics consumer 4 times less often (its batch costs a write per bucket it touches, whatever the events in it). The light gateway reads at every notification of the relay'),
  OUTBOX_CONSUMER_ATTEMPTS: z.coerce.number().int().min(1).default(8)
    .describe('an event a consumer fails on while the database answers is tried this often, the waits doubling from `OUTBOX_CONSUMER_RETRY_BASE_MS`, then recorded in `failed_job` and passed over (a database outage counts no attempt)'),
  OUTBOX_CONSUMER_RETRY_BASE_MS: z.coerce.number().int().min(1).default(1000)
    .describe('the first wait before a consumer tries an event that failed again; each next wait doubles, up to `OUTBOX_CONSUMER_ATTEMPTS` attempts'),
  LABEL_PRERENDER_DAYS: z.coerce.number().int().min(0).default(7)
    .describe('license plates are rendered ahead when a slot completes only in the formats the client printed within this many days; `0`: never ahead (prints render when asked)'),
  PRINT_RETRY_BASE_MS: z.coerce.number().int().min(1).default(1000)
    .describe('first wait before a print job whose printer did not take it is tried again; each next wait doubles, up to `PRINT_RETRY_MAX_MS`'),
  PRINT_RETRY_MAX_MS: z.coerce.number().int().min(1).default(30_000)
    .describe('the longest wait between two attempts of a print job'),
  PRINT_JOB_GIVE_UP_MINUTES: z.coerce.number().min(0.01).default(15)
    .describe('a print job its printer has not taken this long after it was made is `Failed` (the shipper prints again once the printer is back) rather than printed late'),
  OUTBOX_RETENTION_DAYS: z.coerce.number().min(1).default(7)
    .describe('outbox events are deleted once every consumer has passed them and they are this old; the statistics rebuild reaches back this far ([docs/operations.md](docs/operations.md), Retention)'),
  AUDIT_RETENTION_DAYS: z.coerce.number().min(1).default(90).describe('audit records older than this are deleted'),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().min(1).default(30)
    .describe('finished webhook attempts (a subscription\'s delivery list) older than this are deleted'),
  LABEL_DOCUMENT_RETENTION_DAYS: z.coerce.number().min(0.01).default(3)
    .describe('license plates rendered ahead older than this are deleted (a print renders again)'),
  SORT_BOX_ITEM_RETENTION_DAYS: z.coerce.number().min(1).default(400)
    .describe('confirmed and cancelled sort box items older than this are deleted (the monthly usage figure reads them: keep the months you bill)'),
  FAILED_JOB_RETENTION_DAYS: z.coerce.number().min(1).default(90)
    .describe('`failed_job` rows older than this are deleted'),
  COMMAND_RECORD_RETENTION_HOURS: z.coerce.number().min(1).default(24)
    .describe('applied-command records (a keyed scan holds its `Idempotency-Key` in its record) older than this are deleted (a retry with the same `Idempotency-Key` after that is a new request)'),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000)
    .describe('rows per retention statement (each its own short transaction)'),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(5000)
    .describe('first wait before a failed webhook is retried; each next wait doubles (12 attempts)'),
  QUEUE_DASHBOARD_ADMINS: z.string().optional()
    .describe('comma-separated e-mails of the Admins who may open the queue dashboard `/admin/queues` (it shows every client\'s jobs)').meta({ shownDefault: `\`${DEV_DASHBOARD_ADMIN}\` in development, empty otherwise` }),
  APP_URL_INVENTORY_WEB_PORTAL: z.string().default('https://{team}.inventory.example.com')
    .describe('the inventory web portal the auto-login links lead to (`{team}` is substituted; docs/api.md §9)'),
  APP_URL_SORTING_HUB: z.string().default('https://{team}.sorting-hub.example.com')
    .describe('the sorting hub app the auto-login links lead to (`{team}` is substituted)'),
  APP_URL_SORTING_SORTER: z.string().default('https://{team}.sorting-sorter.example.com')
    .describe('the sorter app the auto-login links lead to (`{team}` is substituted)'),
  APP_URL_INVENTORY_LENS: z.string().default('https://{team}.inventory-lens.example.com')
    .describe('the inventory lens app the auto-login links lead to (`{team}` is substituted)'),
  LABEL_RENDER_THREADS: z.coerce.number().int().min(0).max(64).default(0)
    .describe('worker threads of the API that render license plates (PDF, ZPL) off its event loop').meta({ defaultNote: 'one per CPU but one, at least 1, at most 4' }),
  LABEL_RENDER_MAX_QUEUED: z.coerce.number().int().min(1).default(500)
    .describe('labels waiting for a render thread before the API answers 503 `service-unavailable`'),
  MQTT_URL: z
    .string()
    .default('mqtt://127.0.0.1:1883')
    .refine((v) => v === 'off' || /^(mqtts?|wss?):\/\/[^\s]+$/.test(v), 'must be mqtt://host:port, mqtts://, ws://, wss:// (credentials in the URL if any), or off')
    .describe('the broker of the slot light controllers (`mqtts://`, `ws://`, `wss://`; credentials in the URL, never logged); `off`: no MQTT ([docs/lights.md](docs/lights.md))'),
  MQTT_TOPIC_PREFIX: z
    .string()
    .default('sorting')
    .refine((v) => /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(v), 'must be words of letters, digits, _ . - separated by /')
    .describe('the root of every light topic (`<prefix>/<clientId>/walls/<wallId>/slots/<serial>/front`, …)'),
  LIGHTS_TCP_CONTROLLERS: z.string().optional()
    .describe('a JSON file listing the TCP pick-to-light controllers (address, company) and which node drives which slot side, by serial number ([docs/lights.md](docs/lights.md#mapping-controllers-to-slots-tcp))'),
  LIGHTS_TCP_HEARTBEAT_MS: z.coerce.number().int().min(100).default(5000)
    .describe('status requests to each TCP controller; three unanswered: offline, reconnect'),
  LIGHTS_CONTROLLER_TIMEOUT_MS: z.coerce.number().int().min(500).default(30_000)
    .describe('an MQTT controller silent this long (no status, no heartbeat) is offline'),
  LIGHTS_RESYNC_MS: z.coerce.number().int().min(1000).default(60_000)
    .describe('every light is set again from PostgreSQL this often (besides every event, start and reconnect)'),
  EMBEDDED_SERVERS: bool.optional()
    .describe('`npm start` runs a server itself when none is named and none answers on its default port: PostgreSQL when `DATABASE_URL` is unset and nothing answers on 127.0.0.1:`EMBEDDED_POSTGRES_PORT`, an MQTT broker when `MQTT_URL` is unset and nothing answers on 127.0.0.1:`EMBEDDED_MQTT_PORT`; `false`: never (Redis is never embedded) ([docs/operations.md](docs/operations.md#embedded-servers))').meta({ shownDefault: '`true`; `false` when `NODE_ENV=production`' }),
  EMBEDDED_DATA_DIR: z.string().min(1).default('.data')
    .describe('the embedded servers\' data, relative to the working directory: `postgres/` (the PostgreSQL cluster), `postgres.password`, `postgres.log`, `mqtt/retained.json` (the broker\'s retained messages), `mqtt/credentials.json` (its users\' passwords)'),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(5432)
    .describe('`npm start` with `DATABASE_URL` unset: the port it looks for PostgreSQL on 127.0.0.1 (`postgres://postgres@127.0.0.1:<port>/sorting`), and where the embedded PostgreSQL listens (127.0.0.1 only) when nothing answers there'),
  EMBEDDED_MQTT_PORT: z.coerce.number().int().min(1).max(65535).default(1883)
    .describe('`npm start` with `MQTT_URL` unset: the port it looks for a broker on 127.0.0.1, and where the embedded broker listens (on `EMBEDDED_MQTT_HOST`) when nothing answers there'),
  EMBEDDED_MQTT_HOST: z.string().min(1).default('127.0.0.1')
    .describe('the interface the embedded MQTT broker listens on (`0.0.0.0`: controllers on the LAN reach it too); it takes no anonymous client: the service and the controllers sign in with the users and passwords of `mqtt/credentials.json` in `EMBEDDED_DATA_DIR` ([docs/operations.md](docs/operations.md#embedded-servers))'),
  EMBEDDED_POSTGRES_OS_USER: z.string().regex(/^[a-z_][a-z0-9_-]*$/, 'must be a system user name').default('postgres')
    .describe('`npm start` as root: the system user the embedded PostgreSQL runs as (PostgreSQL refuses to run as root); created when missing'),
  METRICS_TOKEN: z.union([z.literal(''), z.string().min(16)]).optional().transform((v) => v || undefined)
    .describe('a token of at least 16 characters that Prometheus sends as `Authorization: Bearer <token>` to read `GET /metrics`; unset or empty: `/metrics` answers only connections from this machine\'s loopback that no proxy forwarded ([docs/operations.md](docs/operations.md#metrics-and-alerts))').meta({ shownDefault: 'unset: loopback only' }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
    .describe('pino level: `fatal` … `trace`, `silent`'),
  SERVICE_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, e.g. http://localhost:3000' }).optional()
    .describe('where the client tools reach a running service: `npm run simulate` and the [first sort](#a-first-sort) walkthrough; the service itself does not read it').meta({ shownDefault: 'unset: `http://localhost:$PORT`' }),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development')
    .describe('`development`, `test` or `production`; `production` makes `JWT_SECRET` mandatory'),
});

export type AppConfig = Omit<z.infer<typeof configSchema>, 'JWT_SECRET' | 'QUEUE_DASHBOARD_ADMINS'> & {
  /**
   * The signing key of access tokens: JWT_SECRET, or (unset) empty until the runtime has read the
   * service's own key from the database (shared/auth/jwt-secret.ts). An empty key signs nothing and
   * verifies nothing (shared/auth/jwt.ts).
   */
  JWT_SECRET: string;
  /** Lower-cased e-mails; unset means the demo Admin in development and nobody otherwise. */
  QUEUE_DASHBOARD_ADMINS: string[];
  /** True when JWT_SECRET was not set: the service's own random key, kept in the database, signs the tokens. */
  jwtSecretGenerated: boolean;
};

function configError(issues: z.core.$ZodIssue[]): Error {
  return new Error(`Invalid configuration:\n${issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
}

/**
 * The base URL of a running service for the client tools (the simulator): SERVICE_URL, else
 * http://localhost:$PORT (3000), the address `npm start` prints. Only these two settings are read.
 */
export function loadServiceUrl(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): string {
  const parsed = configSchema.pick({ PORT: true, SERVICE_URL: true }).safeParse(env);
  if (!parsed.success) throw configError(parsed.error.issues);
  return (parsed.data.SERVICE_URL ?? `http://localhost:${parsed.data.PORT}`).replace(/\/+$/, '');
}

/** Parses the environment once; a bad setting stops the process with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): AppConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) throw configError(parsed.error.issues);
  const cfg = parsed.data;
  if (!cfg.JWT_SECRET && cfg.NODE_ENV === 'production') {
    throw new Error('Invalid configuration:\n  JWT_SECRET: required when NODE_ENV=production');
  }
  const dashboardAdmins = cfg.QUEUE_DASHBOARD_ADMINS ?? (cfg.NODE_ENV === 'development' ? DEV_DASHBOARD_ADMIN : '');
  return {
    ...cfg,
    JWT_SECRET: cfg.JWT_SECRET ?? '',
    jwtSecretGenerated: !cfg.JWT_SECRET,
    QUEUE_DASHBOARD_ADMINS: dashboardAdmins.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean),
  };
}
