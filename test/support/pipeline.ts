import type { Runtime } from '../../shared/runtime/runtime';
import { consumeOnce, type EventConsumer } from '../../workers/pipeline/consumer-runner';
import { Relay, type RelayedEvent } from '../../workers/outbox/relay.use-case';
import { registerConsumer } from '../../workers/pipeline/consumer.queries';

/**
 * Moves the horizon past every event committed before the call, as the relay does (without publishing);
 * the events it passed. A relay worker running meanwhile (one of the test's API) holds the lock while it
 * steps, and a transaction writing the outbox holds the horizon back: then this tries again until its own
 * step finds nothing more to pass and no writer to wait for.
 */
export async function relayAll(runtime: Pick<Runtime, 'ormSql'>): Promise<RelayedEvent[]> {
  const all: RelayedEvent[] = [];
  const relay = new Relay(runtime.ormSql, 500);
  for (;;) {
    const { locked, events, more } = await relay.step();
    all.push(...events);
    if (locked && events.length === 0 && !more && !relay.waiting) return all;
    if (!locked || relay.waiting) await new Promise((r) => setTimeout(r, 5));
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
