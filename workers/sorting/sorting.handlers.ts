import type { AppError } from '../../shared/errors/app-error';
import type { CommandHandlers, CommandJobInfo } from '../../shared/commands/command-job';
import type { CommandName, CommandPayloads, CommandResults } from '../../shared/commands/commands';
import type { CommandContext, WallActors } from './actor/wall-actor';
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
  const by =
    <N extends CommandName>(name: N, useCase: (ctx: CommandContext, p: CommandPayloads[N]) => Promise<CommandResults[N]>, contended?: (p: CommandPayloads[N]) => AppError) =>
    (payload: CommandPayloads[N], job: CommandJobInfo) =>
      actors.run({ name, payload, job, useCase: (ctx) => useCase(ctx, payload), contended: contended && (() => contended(payload)) });
  return {
    'session.start': by('session.start', startSession),
    'session.renew': by('session.renew', renewSession),
    'session.stop': by('session.stop', stopSession),
    'session.expire': by('session.expire', expireSession),
    'item.scan': by('item.scan', scanItem, scanContended),
    'item.confirm': by('item.confirm', confirmItem),
    'item.cancel': by('item.cancel', cancelItem),
    'item.swap': by('item.swap', swapItem),
    'slot.release': by('slot.release', releaseSlot),
    'wall.update': by('wall.update', updateWall),
    'slots.attach': by('slots.attach', attachSlots),
    'slot.detach': by('slot.detach', detachSlot),
  };
}
