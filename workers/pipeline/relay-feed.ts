import type { WallEvent } from '../../shared/events/channels';

/**
 * Every relayed event with an outbox id in (after, through], in id order: a step of the relay of this
 * process, or what a reader takes after its consumer's position.
 */
export interface FedStep {
  after: string;
  through: string;
  events: readonly { outboxId: string; event: WallEvent }[];
}

/** Events a reader keeps for its consumer at most (beyond: the oldest steps go, and the consumer reads PostgreSQL). */
const MAX_EVENTS = 10_000;

/**
 * The relay's steps handed to the consumers of the same process that read at every step (the light
 * gateway: consumer-runner.ts), so a step costs them no read of PostgreSQL. The relay reads the events
 * of each step anyway (for the hubs), in id order and all of them up to where it read: a step that
 * follows the relay's previous one in this process covers (after, through] exactly. Every other step
 * (on becoming the active relay, on a stand-by relay, a step that failed) breaks the chain: the
 * consumers read PostgreSQL from their position until a step again follows it.
 */
export class RelayFeed {
  private readonly readers = new Set<FeedReader>();
  private stepping: Promise<void> | null = null;
  private settle: (() => void) | null = null;
  /** Where the relay of this process has read through, while its steps chain; null otherwise. */
  private reach: string | null = null;

  /** A step begins: a consumer woken meanwhile (by the step's own notification) waits for its events. */
  begin(): void {
    if (this.stepping) return;
    this.stepping = new Promise((resolve) => (this.settle = resolve));
  }

  /** The relay's step, active and following its previous one: its events go to every reader. */
  push(step: FedStep): void {
    const moved = step.through !== this.reach;
    this.reach = step.through;
    if (BigInt(step.through) > BigInt(step.after)) for (const r of this.readers) r.add(step);
    this.end(moved);
  }

  /** A step whose events are not handed over: the readers read PostgreSQL until the steps chain again. */
  broken(): void {
    this.reach = null;
    for (const r of this.readers) r.clear();
    this.end(true);
  }

  /** A reader for one consumer; `wake` wakes it when a step hands it events or breaks the chain. */
  reader(wake: () => void): FeedReader {
    const r = new FeedReader(this, wake);
    this.readers.add(r);
    return r;
  }

  /** @internal */
  remove(r: FeedReader): void {
    this.readers.delete(r);
  }

  /** @internal Resolves when no step is under way, or after `ms`. */
  settled(ms: number): Promise<void> {
    const s = this.stepping;
    if (!s) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([s, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
  }

  /** @internal */
  get state(): { reach: string | null; stepping: boolean } {
    return { reach: this.reach, stepping: this.stepping !== null };
  }

  private end(wake: boolean): void {
    const settle = this.settle;
    this.stepping = null;
    this.settle = null;
    settle?.();
    if (wake) for (const r of this.readers) r.wake();
  }
}

/** One consumer's view of the feed: the steps handed over and not taken yet, in order. */
export class FeedReader {
  private steps: FedStep[] = [];
  /** Events of the steps held. */
  private held = 0;

  constructor(
    private readonly feed: RelayFeed,
    readonly wake: () => void,
  ) {}

  /** @internal */
  add(step: FedStep): void {
    this.steps.push(step);
    this.held += step.events.length;
    while (this.held > MAX_EVENTS && this.steps.length > 1) this.shift();
    this.wake();
  }

  /** @internal */
  clear(): void {
    this.steps = [];
    this.held = 0;
  }

  /** Waits (at most `ms`) for a step under way, whose events may then be taken. */
  settled(ms: number): Promise<void> {
    return this.feed.settled(ms);
  }

  /**
   * The events fed after `position`, from the steps that follow one another from there (at most
   * `max` events, unless the first step alone holds more); null when the steps held do not start at or
   * before it (a gap: the consumer reads PostgreSQL). Steps at or below the position are dropped.
   */
  take(position: string, max: number): FedStep | null {
    let at = BigInt(position);
    this.drop(at);
    if (!this.steps.length || BigInt(this.steps[0]!.after) > at) return null;
    const events: FedStep['events'][number][] = [];
    while (this.steps.length && BigInt(this.steps[0]!.after) <= at) {
      const step = this.steps[0]!;
      const from = at;
      const add = BigInt(step.after) === from ? step.events : step.events.filter((e) => BigInt(e.outboxId) > from);
      if (events.length && events.length + add.length > max) break;
      for (const e of add) events.push(e);
      at = BigInt(step.through);
      this.shift();
    }
    return { after: position, through: String(at), events };
  }

  /**
   * Whether the relay of this process, chaining its steps, has read through `position` and handed
   * over nothing after it: whatever follows reaches this reader with the relay's next step (or the
   * chain breaks, which wakes it), so a notification needs no read of PostgreSQL.
   */
  covers(position: string): boolean {
    const { reach, stepping } = this.feed.state;
    return !stepping && reach === position && !this.holds(position);
  }

  /** Whether steps after `position` are held, not taken yet (those at or below it are dropped). */
  holds(position: string): boolean {
    this.drop(BigInt(position));
    return this.steps.length > 0;
  }

  /** Drops the steps at or below `at`. */
  private drop(at: bigint): void {
    while (this.steps.length && BigInt(this.steps[0]!.through) <= at) this.shift();
  }

  private shift(): void {
    this.held -= this.steps.shift()?.events.length ?? 0;
  }

  close(): void {
    this.clear();
    this.feed.remove(this);
  }
}

const perRuntime = new WeakMap<object, RelayFeed>();

/** The process's one feed (the relay and the consumers of one runtime share it). */
export function relayFeedOf(runtime: object): RelayFeed {
  let f = perRuntime.get(runtime);
  if (!f) {
    f = new RelayFeed();
    perRuntime.set(runtime, f);
  }
  return f;
}
