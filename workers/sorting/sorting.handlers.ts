import type { CommandHandlers } from '../../shared/commands/command-job';
import type { WallActors } from './actor/wall-actor';
import { startSession } from './use-cases/start-session.use-case';
import { expireSession, renewSession, stopSession } from './use-cases/end-session.use-case';
import { scanContended, scanItem } from './use-cases/scan-item.use-case';
import { confirmItem } from './use-cases/confirm-item.use-case';
import { cancelItem } from './use-cases/cancel-item.use-case';
import { swapItem } from './use-cases/swap-item.use-case';
import { releaseSlot } from './use-cases/release-slot.use-case';
import { updateWall } from './use-cases/update-wall.use-case';
import { attachSlots } from './use-cases/attach-slots.use-case';
import { detachSlot } from './use-cases/detach-slot.use-case';

/** Workers translate, use-cases decide: each command is one use-case, run by its wall's actor. */
export function sortingHandlers(actors: WallActors): CommandHandlers {
  return {
    'session.start': (p, job) => actors.run('session.start', p, job, (ctx) => startSession(ctx, p)),
    'session.renew': (p, job) => actors.run('session.renew', p, job, (ctx) => renewSession(ctx, p)),
    'session.stop': (p, job) => actors.run('session.stop', p, job, (ctx) => stopSession(ctx, p)),
    'session.expire': (p, job) => actors.run('session.expire', p, job, (ctx) => expireSession(ctx, p)),
    'item.scan': (p, job) => actors.run('item.scan', p, job, (ctx) => scanItem(ctx, p), () => scanContended(p)),
    'item.confirm': (p, job) => actors.run('item.confirm', p, job, (ctx) => confirmItem(ctx, p)),
    'item.cancel': (p, job) => actors.run('item.cancel', p, job, (ctx) => cancelItem(ctx, p)),
    'item.swap': (p, job) => actors.run('item.swap', p, job, (ctx) => swapItem(ctx, p)),
    'slot.release': (p, job) => actors.run('slot.release', p, job, (ctx) => releaseSlot(ctx, p)),
    'wall.update': (p, job) => actors.run('wall.update', p, job, (ctx) => updateWall(ctx, p)),
    'slots.attach': (p, job) => actors.run('slots.attach', p, job, (ctx) => attachSlots(ctx, p)),
    'slot.detach': (p, job) => actors.run('slot.detach', p, job, (ctx) => detachSlot(ctx, p)),
  };
}
