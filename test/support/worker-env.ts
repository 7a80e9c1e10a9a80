import { TEST_PG_BASE, redisPrefix, workerDbName } from './test-db';

// Each jest worker talks to its own database and Redis key prefix (set before any module reads config).
const worker = process.env.JEST_WORKER_ID ?? '1';
process.env.NODE_ENV = 'test';
process.env.DATABASE_URL = `${TEST_PG_BASE}/${workerDbName(worker)}`;
process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
process.env.QUEUE_PREFIX = redisPrefix(worker);
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.JWT_SECRET = 'test-secret-test-secret-test-secret';
process.env.SEED_DEMO = 'false';
process.env.PASSWORD_HASH_ROUNDS = '4';
// Every test signs in from 127.0.0.1: the per-address sign-in limit would count the whole run's failures.
process.env.TOKEN_RATE_LIMIT_PER_ADDRESS = '100000';
// Overload shedding answers 503 once waits would pass this; test machines are often busier than any
// floor, and the tests expect answers, so only the command timeout bounds them here.
process.env.COMMAND_MAX_WAIT_MS = '10000';
// Several tests hold a wall's row lock to stop a command at its fence for as long as they need (a crash
// mid-command, a fenced write); a busy test machine also stretches statements. The bound of a PostgreSQL
// that hangs is the fault matrix's to check (test/integration/fault-matrix*.test.ts sets the default).
process.env.DATABASE_QUERY_TIMEOUT_MS = '30000';
