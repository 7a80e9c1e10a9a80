import { randomUUID } from 'node:crypto';
import type { CommandJobInfo } from '../../shared/commands/command-job';
import type { CommandPayloads } from '../../shared/commands/commands';
import { partitionOf } from '../../shared/commands/partitioning';
import { AppError } from '../../shared/errors/app-error';
import { sortingHandlers } from '../../workers/sorting/sorting.handlers';
import { actorDeps } from '../../workers/sorting/sorting.worker';
import { WallActors } from '../../workers/sorting/actor/wall-actor';
import { confirmItem } from '../../workers/sorting/use-cases/confirm-item.use-case';
import { startTestApi, type TestApi } from '../support/test-api';
import { buildFloor, type Floor } from '../support/sorting-floor';

/*
 * A group's ONE write (docs/architecture.md "Group commit"): the commands of a wall decided together
 * are written by a single statement, their changes merged. Rows a statement writes share its
 * transaction (xmin) and its command id within it (cmin): one cmin for every row of the group is one
 * statement. The wall's actors are the sorting worker's own, with no sorting worker running.
 */

jest.setTimeout(90_000);

describe('a group written in one statement', () => {
  let api: TestApi;
  let floor: Floor;
  let actors: WallActors;
  let scanPayload: CommandPayloads['item.scan'];
  let sorterUserId: number;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  const db = () => api.runtime.orm.em.fork();
  let jobs = 0;
  const job = (): CommandJobInfo => ({ commandId: randomUUID(), partition: partitionOf(floor.wallId, api.runtime.config.QUEUE_PARTITIONS), jobId: ++jobs });
  const uuids = (infos: CommandJobInfo[]) => `{${infos.map((i) => i.commandId).join(',')}}`;
  const version = async () => Number((await db().execute<{ version: string }[]>('select version from wall where id = ?', [floor.wallId]))[0]!.version);
  /** The transaction and command id within it of each command's applied record, in the order of `infos`. */
  const records = async (infos: CommandJobInfo[]) => {
    const rows = await db().execute<{ command_id: string; tx: string; cid: string; name: string; remaining: number | null }[]>(
      `select command_id, xmin::text as tx, cmin::text as cid, name, (result->>'remainingUnits')::int as remaining from applied_command where command_id = any(?::uuid[])`,
      [uuids(infos)],
    );
    const byId = new Map(rows.map((r) => [r.command_id, r]));
    return infos.map((i) => byId.get(i.commandId));
  };
  /** The confirm of the item the wall holds pending last (the scan decided just before it in the group). */
  const confirmLast = (info: CommandJobInfo) =>
    actors.run({
      name: 'item.confirm',
      payload: { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorterUserId, roles: ['Sorter'], itemId: 0, units: 1, barcode: null },
      job: info,
      useCase: (ctx) => {
        const pending = [...ctx.state.items.values()].sort((a, b) => b.id - a.id)[0];
        if (!pending) throw new Error('no pending item to confirm');
        return confirmItem(ctx, { clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorterUserId, roles: ['Sorter'], itemId: pending.id, units: 1, barcode: null });
      },
    });

  beforeEach(async () => {
    floor = await buildFloor(api, { orders: [{ id: 1, items: [{ sku: 'SKU-A', qty: 10 }] }] });
    const sorter = await floor.sorter(1);
    sorterUserId = sorter.userId;
    actors = new WallActors(actorDeps(api.runtime), api.runtime.config.QUEUE_PARTITIONS);
    const holder = sortingHandlers(actors);
    const session = await holder['session.start']({ clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], picklistId: null }, job());
    if (!session.ok) throw new Error(`connect refused: ${session.problem.code}`);
    scanPayload = {
      clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorter.userId, roles: ['Sorter'], sessionToken: session.value.token, barcode: 'SKU-A', barcodeInputMethod: 'Scanned', idempotencyKey: null,
    };
    // The wall in memory, its order in a slot (a lone command): the commands below are decided together.
    const warm = await holder['item.scan'](scanPayload, job());
    if (!warm.ok) throw new Error(`scan refused: ${warm.problem.code}`);
  });

  it('a scan, the confirm of that same item and a second scan of the line: one statement, the item inserted as it ends, the line at its final figures', async () => {
    const holder = sortingHandlers(actors);
    const before = await version();
    const infos = [job(), job(), job()];
    const [scan, confirm, second] = await Promise.all([holder['item.scan'](scanPayload, infos[0]!), confirmLast(infos[1]!), holder['item.scan'](scanPayload, infos[2]!)]);
    if (!scan.ok || !confirm.ok || !second.ok) throw new Error('a command of the group was refused');
    expect([scan.value.status, confirm.value.status, second.value.status]).toEqual(['PendingConfirmation', 'Confirmed', 'PendingConfirmation']);
    expect(confirm.value.id).toBe(scan.value.id);

    const recs = await records(infos);
    expect(recs.map((r) => r?.name)).toEqual(['item.scan', 'item.confirm', 'item.scan']);
    expect(recs.map((r) => r?.remaining)).toEqual([8, 8, 7]);
    // One transaction, one statement: every record has the same xmin and cmin.
    expect(new Set(recs.map((r) => `${r!.tx}/${r!.cid}`)).size).toBe(1);
    // The version moved once per command.
    expect(await version()).toBe(before + 3);

    const items = await db().execute<{ id: number; status: string; confirmed_units: number; confirmed_at: Date | null; tx: string; cid: string }[]>(
      `select id, status, confirmed_units, confirmed_at, xmin::text as tx, cmin::text as cid from sort_box_item where id = any(?::int[]) order by id`,
      [`{${scan.value.id},${second.value.id}}`],
    );
    // The scanned item is inserted as the confirm leaves it, by the same statement (an insert then an update would be two).
    expect(items.map((i) => [i.status, i.confirmed_units, i.confirmed_at !== null])).toEqual([
      ['Confirmed', 1, true],
      ['PendingConfirmation', 0, false],
    ]);
    expect(items.every((i) => i.tx === recs[0]!.tx && i.cid === recs[0]!.cid)).toBe(true);

    const [line] = await db().execute<{ confirmed_qty: number; pending_qty: number }[]>('select confirmed_qty, pending_qty from order_item where client_id = ?', [floor.tenant.clientId]);
    // The warm scan's unit and the second scan's are pending; the confirmed one is counted once.
    expect(line).toEqual({ confirmed_qty: 1, pending_qty: 2 });

    // The events in queue order.
    const events = await db().execute<{ type: string; item: number }[]>(
      `select type, (data->'item'->>'id')::int as item from outbox_event where wall_id = ? and type like 'sort-box-item.%' order by id`,
      [floor.wallId],
    );
    expect(events.slice(-3)).toEqual([
      { type: 'sort-box-item.created', item: scan.value.id },
      { type: 'sort-box-item.confirmed', item: scan.value.id },
      { type: 'sort-box-item.created', item: second.value.id },
    ]);
  });

  it('a group that adds slots beside other changes is written one statement per command, in one transaction', async () => {
    const holder = sortingHandlers(actors);
    const infos = [job(), job(), job()];
    const serial = `GW-${randomUUID().slice(0, 8)}`;
    const [attached, first, second] = await Promise.all([
      holder['slots.attach']({ clientId: floor.tenant.clientId, wallId: floor.wallId, userId: sorterUserId, roles: ['Manager'], serialNumbers: [serial] }, infos[0]!),
      holder['item.scan'](scanPayload, infos[1]!),
      holder['item.scan'](scanPayload, infos[2]!),
    ]);
    if (!attached.ok) throw new Error(`attach refused: ${attached.problem.code}`);
    expect([first.ok, second.ok]).toEqual([true, true]);
    const recs = await records(infos);
    expect(recs.map((r) => r?.remaining)).toEqual([null, 8, 7]);
    expect(new Set(recs.map((r) => r!.tx)).size).toBe(1);
    expect(new Set(recs.map((r) => r!.cid)).size).toBe(3);
    const [slot] = await db().execute<{ n: string }[]>('select count(*) as n from sort_box where wall_id = ? and serial_number = ?', [floor.wallId, serial]);
    expect(slot!.n).toBe('1');
  });

  it("a refusal between two scans: its command.refused event is written by the group's statement, in its place, and the scans' records by the same", async () => {
    const holder = sortingHandlers(actors);
    const infos = [job(), job(), job()];
    const [first, refused, third] = await Promise.all([
      holder['item.scan'](scanPayload, infos[0]!),
      actors.run({ name: 'item.scan', payload: scanPayload, job: infos[1]!, useCase: () => Promise.reject(new AppError('no-fulfillable-order', 'Refused for the test.')) }),
      holder['item.scan'](scanPayload, infos[2]!),
    ]);
    expect([first.ok, refused.ok, third.ok]).toEqual([true, false, true]);
    const recs = await records(infos);
    expect(recs[1]).toBeUndefined();
    expect(recs[0]!.tx).toBe(recs[2]!.tx);
    expect(recs[0]!.cid).toBe(recs[2]!.cid);
    const events = await db().execute<{ type: string; tx: string; cid: string; command: string | null }[]>(
      `select type, xmin::text as tx, cmin::text as cid, data->>'command' as command from outbox_event where wall_id = ? and type in ('sort-box-item.created', 'command.refused') order by id`,
      [floor.wallId],
    );
    const group = events.slice(-3);
    expect(group.map((e) => e.type)).toEqual(['sort-box-item.created', 'command.refused', 'sort-box-item.created']);
    expect(group.every((e) => e.tx === recs[0]!.tx && e.cid === recs[0]!.cid)).toBe(true);
    expect(group[1]!.command).toBe('item.scan');
  });
});
