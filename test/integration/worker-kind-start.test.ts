import { randomUUID } from 'node:crypto';
import { WORKER_KIND_NAMES, type WorkerKind } from '../../shared/runtime/worker-kinds';
import { EVENT_CONSUMER_KINDS } from '../../workers/event-consumers';
import type { EventConsumer } from '../../workers/pipeline/consumer-runner';
import { startWorkerKind } from '../../workers/pipeline/worker-kind';
import { WORKER_KINDS } from '../../workers/registry';
import { newTenant, startTestApi, waitFor, type TestApi } from '../support/test-api';

/*
 * Every worker kind starts the one way: whatever else a kind runs (the relay, the sorting workers, the
 * light gateway, the senders), each consumer its code lists is started with it. A consumer added to
 * any kind's list receives the relayed events; none is left unstarted because its kind starts another
 * way.
 */
describe('worker kinds: one way to start, every listed consumer runs', () => {
  let api: TestApi;
  const seen = new Map<WorkerKind, Set<string>>(WORKER_KIND_NAMES.map((k) => [k, new Set<string>()]));
  const probeName = (kind: WorkerKind) => `test-probe-${kind}`;

  beforeAll(async () => {
    // No broker for the light gateway here: it starts its engine and its consumer all the same.
    api = await startTestApi({ env: { MQTT_URL: 'off' } });
    for (const kind of WORKER_KIND_NAMES) {
      const code = await WORKER_KINDS[kind]();
      const probe: EventConsumer = {
        name: probeName(kind),
        handle: async (batch) => {
          for (const e of batch.events) seen.get(kind)!.add(e.id);
        },
      };
      await startWorkerKind(api.runtime, kind, { ...code, consumers: [...code.consumers, probe] });
    }
  }, 60_000);
  afterAll(async () => {
    await api?.runtime.orm.em.fork().execute(`delete from outbox_consumer where name like 'test-probe-%'`);
    await api?.close();
  });

  it("an entry added to any kind's consumers receives the events relayed after it started, and every consumer of the table runs", async () => {
    const em = () => api.runtime.orm.em.fork();
    const tenant = await newTenant(api);
    const eventId = randomUUID();
    const data = { serialNumber: 'SN-1', crc: null, position: null, button: 'short', driver: 'mqtt', code: 'test', detail: 'a probe' };
    await em().execute('insert into outbox_event (event_id, client_id, wall_id, type, data) values (?, ?, null, ?, ?::jsonb)', [eventId, tenant.clientId, 'lights.button', JSON.stringify(data)]);
    // The outbox kind relays it; each kind's probe reads it.
    await waitFor(() => WORKER_KIND_NAMES.every((k) => seen.get(k)!.has(eventId)), { timeoutMs: 30_000 }).catch(() => {
      throw new Error(`kinds whose probe never received the event: ${WORKER_KIND_NAMES.filter((k) => !seen.get(k)!.has(eventId)).join(', ')}`);
    });
    // Every consumer of the table was started by its kind: each registered its position and passed the event.
    const [{ id }] = await em().execute<{ id: string }[]>('select id from outbox_event where event_id = ?', [eventId]);
    await waitFor(async () => {
      const rows = await em().execute<{ name: string }[]>('select name from outbox_consumer where name in (?) and position >= ?', [Object.keys(EVENT_CONSUMER_KINDS), id]);
      return rows.length === Object.keys(EVENT_CONSUMER_KINDS).length;
    }, { timeoutMs: 30_000, what: 'every consumer of the table to pass the event' });
  });
});
