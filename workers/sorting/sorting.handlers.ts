import type { CommandHandlers } from '../../shared/queue/command-job';
import { runWallCommand, type SortingDeps } from './wall-command';
import { startSession } from './use-cases/start-session.use-case';
import { expireSession, renewSession, stopSession } from './use-cases/end-session.use-case';
import { scanItem } from './use-cases/scan-item.use-case';
import { confirmItem } from './use-cases/confirm-item.use-case';
import { cancelItem } from './use-cases/cancel-item.use-case';
import { swapItem } from './use-cases/swap-item.use-case';
import { releaseSlot } from './use-cases/release-slot.use-case';

/** Workers translate, use-cases decide: each command is one call of one use-case. */
export function sortingHandlers(deps: SortingDeps): CommandHandlers {
  const idle = deps.sessionIdleTimeoutMs;
  return {
    'session.start': (p, job) => runWallCommand(deps, 'session.start', job, p, (ctx) => startSession(ctx, p, idle)),
    'session.renew': (p, job) => runWallCommand(deps, 'session.renew', job, p, (ctx) => renewSession(ctx, p, idle)),
    'session.stop': (p, job) => runWallCommand(deps, 'session.stop', job, p, (ctx) => stopSession(ctx, p, idle)),
    'session.expire': (p, job) => runWallCommand(deps, 'session.expire', job, p, (ctx) => expireSession(ctx, p, idle)),
    'item.scan': (p, job) => runWallCommand(deps, 'item.scan', job, p, (ctx) => scanItem(ctx, p, idle)),
    'item.confirm': (p, job) => runWallCommand(deps, 'item.confirm', job, p, (ctx) => confirmItem(ctx, p, idle)),
    'item.cancel': (p, job) => runWallCommand(deps, 'item.cancel', job, p, (ctx) => cancelItem(ctx, p, idle)),
    'item.swap': (p, job) => runWallCommand(deps, 'item.swap', job, p, (ctx) => swapItem(ctx, p, idle)),
    'slot.release': (p, job) => runWallCommand(deps, 'slot.release', job, p, (ctx) => releaseSlot(ctx, p)),
  };
}
