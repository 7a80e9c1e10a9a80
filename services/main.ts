import { loadConfig } from '../shared/config/config';
import { createLogger } from '../shared/logging/logger';
import { startEmbeddedServers, type EmbeddedServers } from './supervisor/embedded/embedded-servers';
import { ROLES } from './supervisor/roles';
import { Supervisor, runMigrations } from './supervisor/supervisor';

/**
 * `npm start`: the supervisor. It applies the migrations (and seeds the demo client on an empty
 * database) in a one-shot child, then runs the API and every worker role as child processes
 * (services/supervisor/roles.ts), restarts one that dies, and stops them all in order on SIGTERM or
 * SIGINT. It holds no database connection; a Redis connection only once a sorting process died, to
 * hand that process's partitions over at once (services/supervisor/supervisor.ts). With no PostgreSQL
 * or MQTT broker named and none on the default port, it first starts embedded ones, and stops them
 * last (services/supervisor/embedded).
 */
/** A second signal within this of the first is the same Ctrl-C (the terminal's and npm's copies), not a request to force. */
const FORCE_AFTER_MS = 1000;

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'supervisor');
  if (config.jwtSecretGenerated) {
    log.info('JWT_SECRET is not set: tokens are signed with this deployment\'s own random key, kept in the database (table service_secret)');
  }
  const supervisor = new Supervisor(ROLES, config, log, config.COMMAND_TIMEOUT_MS + 10_000);
  let signalled = 0;
  let firstSignalAt = 0;
  let migration: ReturnType<typeof runMigrations> | undefined;
  let embedded: EmbeddedServers | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled++;
    if (signalled > 1) {
      // One Ctrl-C can arrive twice at once: the terminal signals the whole process group, and `npm start`
      // passes its own copy on. Only a second one after a pause forces.
      if (Date.now() - firstSignalAt < FORCE_AFTER_MS) {
        if (signalled === 2) log.info({ signal }, `signal again within ${FORCE_AFTER_MS} ms (the same Ctrl-C); still stopping in order, a second Ctrl-C after a moment kills every process`);
        signalled = 1;
        return;
      }
      log.warn({ signal }, 'second signal: killing every process now');
      supervisor.killAll();
      process.exit(1);
    }
    firstSignalAt = Date.now();
    log.info({ signal }, 'received signal, stopping every process in order');
    migration?.stop();
    supervisor
      .stop()
      .then(() => embedded?.stop())
      .then(
        () => {
          log.info('every process stopped');
          process.exit(0);
        },
        (err) => {
          log.error({ err }, 'error while stopping');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // Before any child: each inherits the addresses it sets (DATABASE_URL, MQTT_URL).
  embedded = await startEmbeddedServers(process.env, config, log);
  if (embedded.banner) process.stderr.write(`${embedded.banner}\n`);
  if (signalled) {
    await embedded.stop();
    process.exit(0);
  }
  migration = runMigrations(log, config.SEED_DEMO);
  await migration.done.catch((err: unknown) => {
    // Stopped by a signal: onSignal exits once every process is down.
    if (!signalled) throw err;
  });
  migration = undefined;
  if (signalled) return;
  supervisor.start();
  log.info({ pids: supervisor.pids() }, 'every role started');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
