import { createLogger } from '../../shared/logging/logger';
import { startDueSender, type DueRows } from '../../workers/pipeline/due-sender';
import { waitFor } from '../support/wait-for';

/*
 * The one loop of the senders of rows that fall due (print jobs, webhook deliveries): it sends at most
 * its concurrency at once, looks again at once when a send frees a full sender, wakes when the next row
 * falls due rather than at its poll, and closing waits for the sends under way. The rows here are an
 * array: the loop knows them only through nextDue and claim. The poll is an hour, so every step seen
 * here was woken by the loop itself, never by the poll.
 */
function table(dueAt: number[]) {
  const rows = dueAt.map((at, id) => ({ id, at, claimed: false }));
  const gates = new Map<number, () => void>();
  const sent: number[] = [];
  let inFlight = 0;
  let most = 0;
  const closers: (() => Promise<void> | void)[] = [];
  const spec: DueRows<{ id: number }> = {
    name: 'test sender',
    concurrency: 3,
    pollMs: 3_600_000,
    nextDue: async () => {
      const open = rows.filter((r) => !r.claimed).map((r) => r.at);
      return open.length ? new Date(Math.min(...open)) : null;
    },
    claim: async (limit) => {
      const due = rows.filter((r) => !r.claimed && r.at <= Date.now()).slice(0, limit);
      for (const r of due) r.claimed = true;
      return due.map((r) => ({ id: r.id }));
    },
    send: (row) => {
      most = Math.max(most, ++inFlight);
      return new Promise<void>((resolve) =>
        gates.set(row.id, () => {
          inFlight--;
          sent.push(row.id);
          resolve();
        }),
      );
    },
    failed: () => undefined,
  };
  const sender = startDueSender({ log: createLogger('silent', 'test'), onClose: (_name, fn) => void closers.push(fn) }, spec);
  const release = (id: number) => gates.get(id)!();
  const add = (at: number) => rows.push({ id: rows.length, at, claimed: false });
  return { sender, sent, gates, release, add, most: () => most, close: () => Promise.all(closers.map((c) => c())) };
}

describe('the due-rows sender loop', () => {
  it('sends at most its concurrency at once, and takes the next at once when one ends', async () => {
    const t = table(Array.from({ length: 7 }, () => 0));
    await waitFor(() => t.gates.size === 3, { what: 'three sends under way' });
    expect(t.most()).toBe(3);
    for (let id = 0; id < 7; id++) {
      await waitFor(() => t.gates.has(id), { what: `row ${id} claimed` });
      t.release(id);
    }
    await waitFor(() => t.sent.length === 7, { what: 'every row sent' });
    expect(t.most()).toBe(3);
    await t.close();
  });

  it('takes a row when it falls due, and one made meanwhile when woken', async () => {
    const t = table([Date.now() + 300]);
    await waitFor(() => t.gates.has(0), { what: 'the row due in 300 ms claimed' });
    t.add(0);
    t.sender.wake();
    await waitFor(() => t.gates.has(1), { what: 'the row made meanwhile claimed' });
    t.release(0);
    t.release(1);
    await t.close();
  });

  it('closing waits for the sends under way', async () => {
    const t = table([0]);
    await waitFor(() => t.gates.has(0), { what: 'the send under way' });
    let closed = false;
    const closing = t.close().then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    expect([closed, t.sender.stopped()]).toEqual([false, true]);
    t.release(0);
    await closing;
    expect(t.sent).toEqual([0]);
  });
});
