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

const DEV_JWT_SECRET = 'development-only-secret-change-me';
// The seeded demo client's Admin (services/seed), whose password `npm start` prints anyway.
const DEV_DASHBOARD_ADMIN = 'admin@demo.local';

/** Every setting of the service, with its default. The README's settings table mirrors this. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  CATALOG_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // /healthz and /readyz on a listener of their own as well (services/api/http/readiness.ts), for probes a flood on PORT cannot delay.
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/sorting'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).default(10),
  // The connection budget of the whole deployment (docs/scaling.md): every process checks at start
  // that SERVICE_PROCESSES × DATABASE_POOL_MAX fits in it and warns if not.
  DATABASE_MAX_CONNECTIONS: z.coerce.number().int().min(1).optional(),
  SERVICE_PROCESSES: z.coerce.number().int().min(1).default(1),
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  DATABASE_PREPARED_STATEMENTS: bool.default(true),
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
    }, 'must be redis://host:port, rediss://..., or redis+cluster://host:port,host:port,... for a Redis Cluster'),
  // No braces: a hash tag in the prefix would put every queue in one cluster slot (docs/scaling.md).
  QUEUE_PREFIX: z.string().min(1).regex(/^[^{}]+$/, 'must not contain { or }').default('sorting'),
  QUEUE_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(8),
  COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).default(10000),
  // The command client's one admission policy (shared/commands/admission.ts): the longest a command
  // may expect to wait, at the rate answers arrive, before the API answers 503 at once instead; and
  // never more commands waiting than COMMAND_MAX_IN_FLIGHT, whatever the rate.
  COMMAND_MAX_WAIT_MS: z.coerce.number().int().min(50).default(1000),
  COMMAND_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(2000),
  // How long a sorting process's hold on a command partition lasts without being extended (it extends
  // every fifth of it): a process that dies leaves its walls to the others after at most this long
  // (shared/commands/partition-leases.ts).
  SORTING_LEASE_TTL_MS: z.coerce.number().int().min(500).default(10_000),
  // `npm start` (the supervisor): processes per role. 0 sorting workers = one per core.
  SORTING_WORKERS: z.coerce.number().int().min(0).max(64).default(0),
  API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  JWT_SECRET: z.string().min(16).optional(),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).default(12 * 3600),
  SEED_DEMO: bool.default(true),
  SESSION_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(8 * 3600 * 1000),
  SESSION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  RECENT_ORDER_DAYS: z.coerce.number().int().min(1).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(5000),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1000),
  OUTBOX_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  // The relay stamps at most this often while commits trickle in (each commit notifies it), so a busy
  // floor's commits share a statement and a publish; a full batch goes on at once.
  OUTBOX_RELAY_INTERVAL_MS: z.coerce.number().int().min(0).max(1000).default(10),
  // Event consumers (docs/architecture.md "Event pipeline"): a consumer looks this often for relayed
  // events, so it takes them in fewer, larger batches (a full batch goes on at once).
  OUTBOX_CONSUMER_INTERVAL_MS: z.coerce.number().int().min(0).default(500),
  // An event a consumer fails on while the database answers is tried this often (waits doubling from
  // OUTBOX_CONSUMER_RETRY_BASE_MS), then recorded in failed_job and passed over.
  OUTBOX_CONSUMER_ATTEMPTS: z.coerce.number().int().min(1).default(8),
  OUTBOX_CONSUMER_RETRY_BASE_MS: z.coerce.number().int().min(1).default(1000),
  // Labels are rendered ahead only in the formats the client printed within this many days (0: never ahead).
  LABEL_PRERENDER_DAYS: z.coerce.number().int().min(0).default(7),
  // Retention (docs/operations.md "Retention"): how long each kind of record is kept, enforced by the
  // sweeper in batches of RETENTION_BATCH_SIZE rows.
  OUTBOX_RETENTION_DAYS: z.coerce.number().min(1).default(7),
  AUDIT_RETENTION_DAYS: z.coerce.number().min(1).default(90),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().min(1).default(30),
  LABEL_DOCUMENT_RETENTION_DAYS: z.coerce.number().min(0.01).default(3),
  SORT_BOX_ITEM_RETENTION_DAYS: z.coerce.number().min(1).default(400),
  FAILED_JOB_RETENTION_DAYS: z.coerce.number().min(1).default(90),
  COMMAND_RECORD_RETENTION_HOURS: z.coerce.number().min(1).default(24),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  // log2 of scrypt's N for passwords and the PIN (shared/auth/password.ts); tests use 4.
  PASSWORD_HASH_ROUNDS: z.coerce.number().int().min(4).max(20).default(14),
  TOKEN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  TOKEN_RATE_WINDOW_MS: z.coerce.number().int().min(1000).default(5 * 60_000),
  TOKEN_RATE_LIMIT_PER_ADDRESS: z.coerce.number().int().min(1).default(100),
  TRUST_PROXY: trustProxy,
  // Operators: the Admins (by e-mail) who may open the queue dashboard, which shows every client's jobs.
  QUEUE_DASHBOARD_ADMINS: z.string().optional(),
  APP_URL_INVENTORY_WEB_PORTAL: z.string().default('https://{team}.inventory.example.com'),
  APP_URL_SORTING_HUB: z.string().default('https://{team}.sorting-hub.example.com'),
  APP_URL_SORTING_SORTER: z.string().default('https://{team}.sorting-sorter.example.com'),
  APP_URL_INVENTORY_LENS: z.string().default('https://{team}.inventory-lens.example.com'),
  /** Threads of the API's label renderer; 0: one per CPU but one, at least 1, at most 4. */
  LABEL_RENDER_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  LABEL_RENDER_MAX_QUEUED: z.coerce.number().int().min(1).default(500),
  // Where the client tools (npm run simulate, the README's walkthrough) reach a running service;
  // unset: http://localhost:$PORT. Not read by the service itself.
  SERVICE_URL: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, e.g. http://localhost:3000' }).optional(),
  // The light gateway (worker kind `lights`, docs/lights.md). `off`: no MQTT (TCP controllers only).
  MQTT_URL: z
    .string()
    .default('mqtt://127.0.0.1:1883')
    .refine((v) => v === 'off' || /^(mqtts?|wss?):\/\/[^\s]+$/.test(v), 'must be mqtt://host:port, mqtts://, ws://, wss:// (credentials in the URL if any), or off'),
  // The root of every topic (docs/lights.md "Topics"): words separated by /, no MQTT wildcard.
  MQTT_TOPIC_PREFIX: z
    .string()
    .default('sorting')
    .refine((v) => /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(v), 'must be words of letters, digits, _ . - separated by /'),
  // A JSON file naming the pick-to-light TCP controllers and their node ↔ serial number mapping.
  LIGHTS_TCP_CONTROLLERS: z.string().optional(),
  LIGHTS_TCP_HEARTBEAT_MS: z.coerce.number().int().min(100).default(5000),
  // A controller silent this long (no heartbeat, no status) is offline.
  LIGHTS_CONTROLLER_TIMEOUT_MS: z.coerce.number().int().min(500).default(30_000),
  // Every light is set again from PostgreSQL this often, besides each event and each reconnect.
  LIGHTS_RESYNC_MS: z.coerce.number().int().min(1000).default(60_000),
});

export type AppConfig = Omit<z.infer<typeof configSchema>, 'JWT_SECRET' | 'QUEUE_DASHBOARD_ADMINS'> & {
  JWT_SECRET: string;
  /** Lower-cased e-mails; unset means the demo Admin in development and nobody otherwise. */
  QUEUE_DASHBOARD_ADMINS: string[];
  /** True when JWT_SECRET was not set and the development default is in use. */
  usingDevJwtSecret: boolean;
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
    JWT_SECRET: cfg.JWT_SECRET ?? DEV_JWT_SECRET,
    usingDevJwtSecret: !cfg.JWT_SECRET,
    QUEUE_DASHBOARD_ADMINS: dashboardAdmins.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean),
  };
}
