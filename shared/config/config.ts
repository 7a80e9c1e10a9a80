import { z } from 'zod';

const bool = z
  .union([z.boolean(), z.string()])
  .transform((v) => (typeof v === 'boolean' ? v : ['1', 'true', 'yes', 'on'].includes(v.toLowerCase())));

const DEV_JWT_SECRET = 'development-only-secret-change-me';

/** Every setting of the service, with its default. The README's settings table mirrors this. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  CATALOG_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/sorting'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).default(10),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z.string().min(1).default('sorting'),
  QUEUE_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(8),
  COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).default(10000),
  COMMAND_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(2000),
  // Overload shedding (services/api/use-cases/sorting/overload-shedder.ts): the longest a command may
  // expect to wait, at the rate answers arrive, before the API answers 503 at once instead.
  COMMAND_MAX_WAIT_MS: z.coerce.number().int().min(50).default(1000),
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
  // log2 of scrypt's N for passwords and the PIN (shared/auth/password.ts); tests use 4.
  PASSWORD_HASH_ROUNDS: z.coerce.number().int().min(4).max(20).default(14),
  TOKEN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  TOKEN_RATE_WINDOW_MS: z.coerce.number().int().min(1000).default(5 * 60_000),
  APP_URL_INVENTORY_WEB_PORTAL: z.string().default('https://{team}.inventory.example.com'),
  APP_URL_SORTING_HUB: z.string().default('https://{team}.sorting-hub.example.com'),
  APP_URL_SORTING_SORTER: z.string().default('https://{team}.sorting-sorter.example.com'),
  APP_URL_INVENTORY_LENS: z.string().default('https://{team}.inventory-lens.example.com'),
});

export type AppConfig = Omit<z.infer<typeof configSchema>, 'JWT_SECRET'> & {
  JWT_SECRET: string;
  /** True when JWT_SECRET was not set and the development default is in use. */
  usingDevJwtSecret: boolean;
};

/** Parses the environment once; a bad setting stops the process with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): AppConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  const cfg = parsed.data;
  if (!cfg.JWT_SECRET && cfg.NODE_ENV === 'production') {
    throw new Error('Invalid configuration:\n  JWT_SECRET: required when NODE_ENV=production');
  }
  return { ...cfg, JWT_SECRET: cfg.JWT_SECRET ?? DEV_JWT_SECRET, usingDevJwtSecret: !cfg.JWT_SECRET };
}
