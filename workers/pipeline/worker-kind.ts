import type { Runtime } from '../../shared/runtime/runtime';
import { consumerSettings, startEventConsumer, type ConsumerBatch, type ConsumerSettings, type EventConsumer } from './consumer-runner';

/**
 * A consumer of a worker kind, with its settings where they differ from the process's OUTBOX_* ones:
 * fixed values (`settings`), or `gather`: it looks that many times less often and takes batches that
 * many times larger, for a consumer whose cost is per batch rather than per event.
 */
export type KindConsumer<Ctx = unknown> = EventConsumer<Ctx> & { settings?: Partial<ConsumerSettings>; gather?: number };

/**
 * What a kind's own start gives its consumers: `context`, what each batch's handler receives besides
 * the settings and the log (the light gateway's engine), and hooks by consumer name: `afterCommit`
 * after a batch committed (a sender looks for the rows the batch made), `onStandby` each time another
 * process holds the consumer's position.
 */
export interface KindStarted<Ctx> {
  context: Ctx;
  afterCommit?: Readonly<Record<string, (batch: ConsumerBatch) => void>>;
  onStandby?: Readonly<Record<string, () => void>>;
}

/**
 * The code of one worker kind (workers/registry.ts loads it when the kind starts): its event consumers,
 * and what else it runs (`start`: a relay, a sender, the light gateway), started before them.
 */
export interface WorkerKindCode<Ctx = unknown> {
  consumers: readonly KindConsumer<Ctx>[];
  start?(runtime: Runtime): Promise<KindStarted<Ctx>>;
}

/** A kind that runs its own worker and no consumer. */
export function ownWorker(start: (runtime: Runtime) => Promise<void>): WorkerKindCode {
  return {
    consumers: [],
    start: async (runtime) => {
      await start(runtime);
      return { context: undefined };
    },
  };
}

/** A consumer's own settings over the process's `base` ones. */
export function settingsOf(c: Pick<KindConsumer, 'settings' | 'gather'>, base: ConsumerSettings): Partial<ConsumerSettings> {
  const gather = c.gather ?? 1;
  return { ...(gather === 1 ? {} : { intervalMs: base.intervalMs * gather, batchSize: base.batchSize * gather }), ...c.settings };
}

/**
 * Starts a worker kind in this process, the one way every kind starts: its own start first (which
 * registers its closers first, so its consumers stop before what they use), then every consumer it
 * lists, each with the context and hooks that start gave.
 */
export async function startWorkerKind<Ctx>(runtime: Runtime, kind: string, code: WorkerKindCode<Ctx>): Promise<void> {
  if (!code.start && !code.consumers.length) throw new Error(`worker kind '${kind}' has neither a worker nor a consumer`);
  const started: KindStarted<Ctx> = code.start ? await code.start(runtime) : { context: undefined as Ctx };
  const names = new Set(code.consumers.map((c) => c.name));
  for (const hooked of [...Object.keys(started.afterCommit ?? {}), ...Object.keys(started.onStandby ?? {})]) {
    if (!names.has(hooked)) throw new Error(`worker kind '${kind}' hooks consumer '${hooked}', which it does not run`);
  }
  for (const c of code.consumers) {
    await startEventConsumer(runtime, c, {
      name: `${c.name} consumer`,
      settings: settingsOf(c, consumerSettings(runtime.config)),
      context: started.context,
      afterCommit: started.afterCommit?.[c.name],
      onStandby: started.onStandby?.[c.name],
    });
  }
}
