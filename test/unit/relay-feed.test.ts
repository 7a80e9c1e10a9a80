import type { WallEvent } from '../../shared/events/channels';
import { RelayFeed, type FedStep } from '../../workers/pipeline/relay-feed';

/*
 * The relay's steps handed to a consumer of the same process: what the consumer may take from memory
 * (the events right after its position, in order, all of them) and when it must read the outbox.
 */

const ev = (outboxId: number): { outboxId: string; event: WallEvent } => ({
  outboxId: String(outboxId),
  event: { id: `e${outboxId}`, type: 'sort-box-item.created', occurredAt: '2026-12-02T00:00:00.000Z', clientId: 1, wallId: 1, data: {} },
});
const step = (after: number, through: number, ids: number[]): FedStep => ({ after: String(after), through: String(through), events: ids.map(ev) });
const ids = (b: { events: readonly { outboxId: string }[] } | null) => b?.events.map((e) => Number(e.outboxId));

describe('the relay feed of a process', () => {
  it('hands the steps that follow the position over, in order, as one batch; a batch through the last step', () => {
    const feed = new RelayFeed();
    let wakes = 0;
    const reader = feed.reader(() => wakes++);
    feed.begin();
    feed.push(step(10, 13, [11, 13]));
    feed.begin();
    feed.push(step(13, 15, [14, 15]));
    expect(wakes).toBeGreaterThanOrEqual(2);
    const batch = reader.take('10', 100);
    expect(batch).toMatchObject({ after: '10', through: '15' });
    expect(ids(batch)).toEqual([11, 13, 14, 15]);
    expect(reader.take('15', 100)).toBeNull();
    expect(reader.covers('15')).toBe(true);
    expect(reader.covers('13')).toBe(false);
  });

  it('a position inside a step takes the events after it only; steps at or below it are dropped', () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    feed.push(step(10, 13, [11, 13]));
    feed.push(step(13, 20, [14, 17, 20]));
    expect(ids(reader.take('14', 100))).toEqual([17, 20]);
    expect(reader.holds('20')).toBe(false);
  });

  it('steps a read of the outbox already passed do not count: the position is covered', () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    feed.push(step(10, 13, [11, 13]));
    expect(reader.covers('13')).toBe(true);
    expect(reader.holds('13')).toBe(false);
  });

  it('a position before the first step held (a gap) takes nothing: the consumer reads the outbox', () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    feed.push(step(10, 13, [11, 13]));
    expect(reader.take('9', 100)).toBeNull();
    expect(reader.covers('9')).toBe(false);
  });

  it('a batch stops at a step that would take it past its size, and the rest waits for the next', () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    feed.push(step(0, 3, [1, 2, 3]));
    feed.push(step(3, 6, [4, 5, 6]));
    const first = reader.take('0', 4);
    expect(first).toMatchObject({ through: '3' });
    expect(reader.holds('3')).toBe(true);
    expect(ids(reader.take('3', 4))).toEqual([4, 5, 6]);
  });

  it('a step of ids that hold no event still moves the position; a step that moved nothing hands nothing over', () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    feed.push(step(5, 8, []));
    expect(reader.take('5', 10)).toEqual({ after: '5', through: '8', events: [] });
    feed.push(step(8, 8, []));
    expect(reader.holds('8')).toBe(false);
    expect(reader.covers('8')).toBe(true);
  });

  it('a broken chain (becoming the active relay, a stand-by, a failure) drops what is held and wakes the reader', () => {
    const feed = new RelayFeed();
    let wakes = 0;
    const reader = feed.reader(() => wakes++);
    feed.push(step(0, 3, [1, 2, 3]));
    const before = wakes;
    feed.broken();
    expect(wakes).toBe(before + 1);
    expect(reader.take('0', 10)).toBeNull();
    expect(reader.covers('3')).toBe(false);
  });

  it('while a step is under way nothing is covered, and settling waits for it', async () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    feed.push(step(0, 3, [1, 2, 3]));
    reader.take('0', 10);
    feed.begin();
    expect(reader.covers('3')).toBe(false);
    const settled = reader.settled(60_000).then(() => 'settled');
    feed.push(step(3, 4, [4]));
    expect(await settled).toBe('settled');
    expect(ids(reader.take('3', 10))).toEqual([4]);
    expect(reader.covers('4')).toBe(true);
  });

  it('a consumer that falls far behind: the oldest steps go (10,000 events held at most), and it reads the outbox for them', () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i + 1);
    feed.push(step(0, 5000, range(0, 5000)));
    feed.push(step(5000, 10_000, range(5000, 5000)));
    feed.push(step(10_000, 10_001, [10_001]));
    expect(reader.take('0', 100_000)).toBeNull();
    expect(ids(reader.take('5000', 100_000))).toEqual(range(5000, 5001));
  });

  it('a reader closed gets no more steps', () => {
    const feed = new RelayFeed();
    const reader = feed.reader(() => undefined);
    reader.close();
    feed.push(step(0, 3, [1, 2, 3]));
    expect(reader.take('0', 10)).toBeNull();
  });
});
