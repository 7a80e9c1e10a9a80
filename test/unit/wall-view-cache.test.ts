import { WallViewCache } from '../../services/api/use-cases/walls/wall-view-cache';
import type { WallViewRow } from '../../services/api/use-cases/walls/wall-view.queries';
import { waitFor } from '../support/wait-for';

/*
 * What GET /walls/{id} answers from memory, and what drops it: the logic alone (the reads are counted
 * functions). test/e2e/wall-view-cache.test.ts follows the same through the API, the sorting worker and
 * Redis.
 */

const row = (name: string) => ({ wall: { name } }) as unknown as WallViewRow;

/** A wall's reads from "PostgreSQL": the name it holds now, and how many reads were made. */
function store(name = 'A') {
  const s = { name, reads: 0, load: async () => (s.reads++, row(s.name)) };
  return s;
}

const nameOf = (r: WallViewRow | undefined) => (r as unknown as { wall: { name: string } } | undefined)?.wall.name;

function liveCache(maxAgeMs = 60_000, announce?: () => Promise<void>) {
  const cache = new WallViewCache(maxAgeMs, announce);
  cache.subscribed();
  return cache;
}

describe('the wall view cache', () => {
  it('answers a wall read before from memory, for its own client only', async () => {
    const cache = liveCache();
    const db = store();
    expect(nameOf(await cache.read(1, 10, db.load))).toBe('A');
    db.name = 'B';
    expect(nameOf(await cache.read(1, 10, db.load))).toBe('A');
    expect(db.reads).toBe(1);
    // Another client asks for the wall: read (and refused by the route), never answered from memory.
    await cache.read(2, 10, db.load);
    expect(db.reads).toBe(2);
  });

  it('keeps no wall that was not found', async () => {
    const cache = liveCache();
    let reads = 0;
    const none = async () => (reads++, undefined);
    await cache.read(1, 10, none);
    await cache.read(1, 10, none);
    expect(reads).toBe(2);
  });

  it('drops a wall whose command was answered, or a notice named; the others stay', async () => {
    const cache = liveCache();
    const a = store('A');
    const b = store('B');
    await cache.read(1, 10, a.load);
    await cache.read(1, 11, b.load);
    a.name = 'A2';
    b.name = 'B2';
    cache.commandAnswered(10);
    expect(nameOf(await cache.read(1, 10, a.load))).toBe('A2');
    expect(nameOf(await cache.read(1, 11, b.load))).toBe('B');
    cache.heard('w:11');
    expect(nameOf(await cache.read(1, 11, b.load))).toBe('B2');
    // Several walls in one message (the relay's, before a batch of events).
    a.name = 'A3';
    b.name = 'B3';
    cache.heard('w:10,11');
    expect(nameOf(await cache.read(1, 10, a.load))).toBe('A3');
    expect(nameOf(await cache.read(1, 11, b.load))).toBe('B3');
  });

  it("drops every wall on a write outside the commands (and tells the other processes), on '*' and on a message it does not understand", async () => {
    let announced = 0;
    const cache = liveCache(60_000, async () => void announced++);
    const db = store();
    for (const drop of [() => void cache.changedOutside(), () => cache.heard('*'), () => cache.heard('x:what'), () => cache.heard('w:10,x')]) {
      await cache.read(1, 10, db.load);
      const before = db.reads;
      drop();
      await cache.read(1, 10, db.load);
      expect(db.reads).toBe(before + 1);
    }
    expect(announced).toBe(1);
  });

  it('answers a read that began before a change of its wall, but does not keep it', async () => {
    const cache = liveCache();
    const db = store('old');
    let release!: () => void;
    const slow = async () => {
      await new Promise<void>((r) => (release = r));
      return db.load();
    };
    const reading = cache.read(1, 10, slow);
    cache.commandAnswered(10);
    db.name = 'new';
    release();
    expect(nameOf(await reading)).toBe('new');
    db.name = 'newer';
    // Not kept: the next read goes to the store.
    expect(nameOf(await cache.read(1, 10, db.load))).toBe('newer');
    // A change of another wall meanwhile does not stop a read from being kept.
    const other = cache.read(1, 10, slow);
    cache.commandAnswered(11);
    release();
    await other;
    db.name = 'newest';
    expect(nameOf(await cache.read(1, 10, db.load))).toBe('newer');
  });

  it('keeps nothing before the changes channel is subscribed, nor after it is lost until it is back', async () => {
    const cache = new WallViewCache(60_000);
    const db = store();
    await cache.read(1, 10, db.load);
    await cache.read(1, 10, db.load);
    expect(db.reads).toBe(2);
    cache.subscribed();
    await cache.read(1, 10, db.load);
    await cache.read(1, 10, db.load);
    expect(db.reads).toBe(3);
    cache.lost();
    await cache.read(1, 10, db.load);
    await cache.read(1, 10, db.load);
    expect(db.reads).toBe(5);
    cache.subscribed();
    await cache.read(1, 10, db.load);
    expect(db.reads).toBe(6);
  });

  it('keeps nothing with a lifetime of 0, and nothing longer than its lifetime', async () => {
    const off = liveCache(0);
    const db = store();
    await off.read(1, 10, db.load);
    await off.read(1, 10, db.load);
    expect(db.reads).toBe(2);

    const cache = liveCache(50);
    const aged = store('A');
    await cache.read(1, 10, aged.load);
    aged.name = 'B';
    // Changed where no notice tells (SQL by hand): read again once the entry's lifetime is over.
    await waitFor(async () => nameOf(await cache.read(1, 10, aged.load)) === 'B', { timeoutMs: 5_000, what: 'the entry to expire' });
  });
});
