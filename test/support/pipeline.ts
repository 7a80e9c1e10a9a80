import type { Runtime } from '../../shared/runtime/runtime';
import { consumeOnce, type EventConsumer } from '../../workers/pipeline/consumer-runner';
import { stampOnce, type RelayedEvent } from '../../workers/outbox/relay.use-case';
import { registerConsumer } from '../../workers/pipeline/consumer.queries';

/**
 * Stamps every committed event not relayed yet, as the relay does (without publishing); the events it
 * stamped. A relay worker running meanwhile (one of the test's API) holds the lock while it stamps:
 * then this waits for it, so everything committed before the call is relayed when it returns.
 */
export async function relayAll(runtime: Pick<Runtime, 'ormSql'>): Promise<RelayedEvent[]> {
  const all: RelayedEvent[] = [];
  for (;;) {
    const { locked, events } = await stampOnce(runtime.ormSql, 500);
    all.push(...events);
    if (locked && events.length === 0) return all;
    if (!locked) await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs one consumer over everything relayed after its position, in batches of `batchSize`, as its worker does. */
export async function consumeAll(runtime: Pick<Runtime, 'ormSql' | 'config' | 'log'>, consumer: EventConsumer, batchSize = 500): Promise<number> {
  await registerConsumer(runtime.ormSql, { name: consumer.name });
  let batches = 0;
  for (;;) {
    const r = await consumeOnce(runtime.ormSql, consumer, batchSize, runtime);
    if (r.status !== 'done') return batches;
    batches++;
  }
}
