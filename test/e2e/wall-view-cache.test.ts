import request from 'supertest';
import { createCommandClient, type CommandClient } from '../../shared/commands/command-client';
import { useTestApi, waitFor } from '../support/test-api';
import { buildFloor, connect, type Floor } from '../support/sorting-floor';

/*
 * GET /walls/{id} answers a wall unchanged since its last read from memory (the API process's wall view
 * cache), and drops it on every change that goes through the service: a command of the wall answered
 * here, a command any other process sent (the sorting worker's notice), a write through the API
 * outside the commands, and a lost connection to the changes channel. A wall renamed by SQL behind the
 * service's back is the change no one announces: it shows whether a read came from memory.
 */

describe('the wall view cache of GET /walls/{id}', () => {
  const api = useTestApi({ workers: ['sorting'] });
  let floor: Floor;
  let renames = 0;

  beforeAll(async () => {
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 2 }] }] });
  });

  const read = async () => {
    const res = await request(api.app).get(`/api/v1/walls/${floor.wallId}`).set('Authorization', floor.tenant.auth);
    expect(res.status).toBe(200);
    return res.body as { name: string; sessions: { userId: number }[] };
  };

  /** Renames the wall in PostgreSQL only, after a read that keeps it: the next reads show the old name while it is kept. */
  const renameBehindTheService = async () => {
    const before = (await read()).name;
    const name = `By hand ${++renames}`;
    await api.runtime.orm.em.fork().execute('update wall set name = ? where id = ?', [name, floor.wallId]);
    expect((await read()).name).toBe(before);
    return name;
  };

  it('answers an unchanged wall from memory, and reads it again once one of its commands is answered', async () => {
    const name = await renameBehindTheService();
    const sorter = await floor.sorter(1);
    const connected = await connect(api, floor, sorter.auth);
    expect(connected.status).toBe(200);
    const wall = await read();
    expect(wall.name).toBe(name);
    expect(wall.sessions.map((s) => s.userId)).toEqual([sorter.userId]);
  });

  it('reads every wall again after a write through the API outside the commands', async () => {
    const name = await renameBehindTheService();
    const printer = await request(api.app).post('/api/v1/printers').set('Authorization', floor.tenant.auth).send({ name: 'Dock printer', host: '127.0.0.1', port: 9100 });
    expect(printer.status).toBe(200);
    expect((await read()).name).toBe(name);
  });

  it('keeps every wall through a write refused before its handler (not signed in)', async () => {
    const name = await renameBehindTheService();
    const refused = await request(api.app).post('/api/v1/printers').send({ name: 'Dock printer', host: '127.0.0.1', port: 9100 });
    expect(refused.status).toBe(401);
    expect((await read()).name).not.toBe(name);
  });

  describe('a command another process sent', () => {
    let other: CommandClient;
    beforeAll(() => {
      other = createCommandClient(api.runtime.queueSettings, api.runtime.log);
    });
    afterAll(async () => {
      await other.close();
    });

    it('drops the wall when the sorting worker announces it', async () => {
      const name = await renameBehindTheService();
      const sorter = await floor.sorter(2);
      // The session sweep's command, as the pipeline process sends it: a session that is not due changes nothing, and is announced all the same.
      await other.execute('session.expire', { clientId: floor.tenant.clientId, wallId: floor.wallId, sessionId: sorter.userId });
      await waitFor(async () => (await read()).name === name, { timeoutMs: 5_000, what: 'the worker\'s notice to drop the wall' });
    });
  });

  it('keeps nothing from before its connection to the changes channel was lost', async () => {
    const name = await renameBehindTheService();
    const redis = api.runtime.redis;
    const clients = String(await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
    const mine = clients.split('\n').filter((l) => l.includes(`:${process.pid}:wall-view-changes`));
    expect(mine).toHaveLength(1);
    const id = /(?:^| )id=(\d+)/.exec(mine[0]!)![1]!;
    await redis.call('CLIENT', 'KILL', 'ID', id);
    await waitFor(async () => (await read()).name === name, { timeoutMs: 5_000, what: 'the wall to be read again' });
  });
});
