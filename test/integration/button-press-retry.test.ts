import { Client } from 'pg';
import request from 'supertest';
import { createCommandClient, type CommandClient } from '../../shared/commands/command-client';
import { pressButton } from '../../workers/lights/button-press.use-case';
import { LightsEngine } from '../../workers/lights/lights-engine';
import { startTestApi, waitFor, type TestApi } from '../support/test-api';
import { buildFloor, connect, scan, type Floor } from '../support/sorting-floor';

/*
 * A slot button pressed once counts once, even when the sorting worker does not answer in time
 * (docs/lights.md, "Buttons"): the gateway sends the press's command again for the same item. Here the
 * wall's row is locked, so the first confirm waits at its write past the command timeout (a 504: it may
 * still apply); the gateway sends it again; the lock goes, the first confirm applies and the second is
 * answered "already confirmed", which is this press's success: the item confirmed once, no red flash.
 */
jest.setTimeout(120_000);

describe('a slot button press the sorting worker does not answer in time', () => {
  let api: TestApi;
  let floor: Floor;
  let commands: CommandClient;
  let engine: LightsEngine;

  beforeAll(async () => {
    api = await startTestApi({ workers: ['sorting'] });
    floor = await buildFloor(api, { slots: 2, orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 3 }] }] });
    commands = createCommandClient({ ...api.runtime.queueSettings, commandTimeoutMs: 1500 }, api.runtime.log);
    engine = new LightsEngine(api.runtime.ormSql, api.runtime.log);
  });
  afterAll(async () => {
    await engine?.close();
    await commands?.close();
    await api?.close();
  });

  it('is sent again for the same item until answered, and confirms it once', async () => {
    const s = await floor.sorter(1);
    const token = (await connect(api, floor, s.auth)).body.token as string;
    const scanned = await scan(api, s.auth, token, 'SKU-A');
    expect(scanned.status).toBe(200);
    const itemId = scanned.body.id as number;
    const wall = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth).expect(200);
    const slot = (wall.body.slots as { serialNumber: string; crc: string }[]).find((x) => x.crc === scanned.body.crc)!;

    const retries: { code: unknown; waitMs: number }[] = [];
    const holder = new Client({ connectionString: api.runtime.config.DATABASE_URL });
    await holder.connect();
    let outcome: Awaited<ReturnType<typeof pressButton>>;
    try {
      await holder.query('begin');
      await holder.query('select id from wall where id = $1 for update', [floor.wallId]);
      const pressed = pressButton(
        { db: api.runtime.ormSql, commands, engine, onRetry: (err, waitMs) => retries.push({ code: (err as { code?: unknown }).code, waitMs }) },
        { clientId: floor.tenant.clientId, wallId: floor.wallId, serialNumber: slot.serialNumber, button: 'confirm', pressId: 'p-1', driver: 'mqtt' },
      );
      // The first confirm is held at the wall's lock past the command timeout: answered 504, sent again.
      await waitFor(() => retries.length >= 1, { timeoutMs: 30_000, what: 'the press sent again after its command timed out' });
      expect(retries[0]).toEqual({ code: 'command-timeout', waitMs: 1000 });
      await holder.query('commit');
      outcome = await pressed;
    } finally {
      await holder.end();
    }
    expect(outcome).toEqual({ kind: 'confirmed', itemId });
    const item = await request(api.app).get(`/api/v1/sort-box-items/${itemId}`).set('Authorization', floor.tenant.auth).expect(200);
    expect(item.body.status).toBe('Confirmed');
    // Confirmed once: one confirmed event for the item, and its one unit counted once.
    const events = await api.runtime.orm.em.fork().execute(
      `select count(*)::int as n from outbox_event where type = 'sort-box-item.confirmed' and (data->'item'->>'id')::int = ?`,
      [itemId],
    );
    expect(events).toEqual([{ n: 1 }]);
  });
});
