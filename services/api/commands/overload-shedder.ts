import type { CommandBus } from '../../../shared/queue/command-bus';
import type { CommandName, CommandPayloads, CommandResults } from '../../../shared/queue/commands';
import { AppError } from '../../../shared/errors/app-error';

/**
 * Sheds overload before it queues (docs/api.md §1, 503): a command is admitted only while the commands this API
 * process already waits for would, at the rate answers have been arriving, all be answered within
 * `maxWaitMs`. Beyond that the API answers 503 `service-unavailable` with `Retry-After` at once, instead
 * of holding the request until the command timeout and growing the queues' backlog.
 *
 * The rate is counted over the last 2 s at each answer. It only replaces the estimate when the process
 * has been busy (commands waiting) for the whole window; otherwise it can only raise it. An idle spell
 * means no work, not a slow service, so a burst after a pause is judged by the last busy rate. Until the
 * first answers `initialRatePerSecond` stands in; `minInFlight` commands are always admitted.
 *
 * Work in hand goes first: a confirm, cancel, swap, release or session stop finishes something a
 * person already started (a unit in the sorter's hand, a lit slot, a full slot on the shipper's side),
 * and shedding it leaves a slot held while the floor retries. Those are admitted up to
 * FINISHING_HEADROOM × the capacity; new work (a scan, a connect, a renew) sheds at the capacity itself,
 * so under overload the service keeps finishing what it started instead of starting more (docs/api.md §1).
 */
const WINDOW_MS = 2000;
const FINISHING_HEADROOM = 2;
const FINISHING: ReadonlySet<CommandName> = new Set<CommandName>(['item.confirm', 'item.cancel', 'item.swap', 'slot.release', 'session.stop', 'session.expire']);

export class SheddingCommandBus implements CommandBus {
  private inFlight = 0;
  /** Answers per 250 ms bucket over the last 2 s. */
  private readonly buckets = new Array<number>(8).fill(0);
  private bucketAt = 0;
  private rate: number;
  private busySince = 0;

  constructor(
    private readonly inner: CommandBus,
    private readonly opts: { maxWaitMs: number; minInFlight: number; initialRatePerSecond: number; now?: () => number },
  ) {
    this.rate = opts.initialRatePerSecond;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** Counts one answer now and returns the answers per second over the window. */
  private countAnswer(): number {
    const slot = Math.floor(this.now() / 250);
    if (slot - this.bucketAt >= this.buckets.length) this.buckets.fill(0);
    else for (let s = this.bucketAt + 1; s <= slot; s++) this.buckets[s % this.buckets.length] = 0;
    this.bucketAt = Math.max(this.bucketAt, slot);
    this.buckets[this.bucketAt % this.buckets.length]++;
    return this.buckets.reduce((a, b) => a + b, 0) / 2;
  }

  /** The commands this process may wait for at once now. */
  capacity(): number {
    return Math.max(this.opts.minInFlight, Math.floor((this.rate * this.opts.maxWaitMs) / 1000));
  }

  async execute<N extends CommandName>(name: N, data: CommandPayloads[N]): Promise<CommandResults[N]> {
    if (this.inFlight >= this.capacity() * (FINISHING.has(name) ? FINISHING_HEADROOM : 1)) {
      throw new AppError('service-unavailable', `The sorting service is at capacity (${this.inFlight} commands waiting); nothing was changed. Retry in a moment.`, {
        headers: { 'Retry-After': '1' },
      });
    }
    if (this.inFlight === 0) this.busySince = this.now();
    this.inFlight++;
    try {
      return await this.inner.execute(name, data);
    } finally {
      this.inFlight--;
      const windowRate = this.countAnswer();
      this.rate = this.now() - this.busySince >= WINDOW_MS ? windowRate : Math.max(this.rate, windowRate);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
