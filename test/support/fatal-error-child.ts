import { createLogger } from '../../shared/logging/logger';
import { exitOnFatalErrors } from '../../shared/runtime/runtime';

/*
 * A process with the service's fatal-error policy that then fails with nothing to handle the
 * failure (argv[2]: 'rejection' or 'exception'); test/integration/outages.test.ts watches it die.
 */
const log = createLogger('info', 'fatal-error-test');
exitOnFatalErrors({
  log,
  close: async () => {
    log.info('closed what it could');
  },
});
// Without the policy an unhandled failure of this kind must still stop the process; the interval
// shows that the policy, not an empty event loop, ends it.
setInterval(() => undefined, 1_000);
if (process.argv[2] === 'rejection') void Promise.reject(new Error('boom: nobody handled this rejection'));
else setTimeout(() => {
  throw new Error('boom: nobody caught this exception');
}, 0);
