import { AppError } from '../errors/app-error';
import { FINISHING_COMMANDS, type CommandName } from './commands';

/**
 * The one admission policy of the command client (docs/api.md §1, 503): a command is admitted only
 * while the commands this process already waits for would, at the rate answers have been arriving,
 * all be answered within `maxWaitMs`, and never beyond `maxInFlight` (a hard bound on memory). Beyond
 * that the caller gets 503 `service-unavailable` with `Retry-After` at once, instead of a request held
 * until the command timeout while the queues' backlog grows.
 *
 * The rate is counted over the last 2 s at each answer. It only replaces the estimate when the process
 * has been busy (commands waiting) for the whole window; otherwise it can only raise it. An idle spell
 * means no work, not a slow service, so a burst after a pause is judged by the last busy rate. Until the
 * first answers `initialRatePerSecond` stands in; `minInFlight` commands are always admitted.
 *
 * Work in hand goes first: a confirm, cancel, swap, release or session stop (FINISHING_COMMANDS)
 * finishes something a person already started, and shedding it leaves a slot held while the floor
 * retries. Those are admitted up to FINISHING_HEADROOM × the capacity; new work (a scan, a connect, a
 * renew, a wall edit) sheds at the capacity itself, so under overload the service keeps finishing what
 * it started instead of starting more.
 */
const WINDOW_MS = 2000;
const FINISHING_HEADROOM = 2;

export interface AdmissionOptions {
  /** COMMAND_MAX_WAIT_MS: the longest a command may expect to wait. */
  maxWaitMs: number;
  /** COMMAND_MAX_IN_FLIGHT: never more waiting than this, whatever the rate. */
  maxInFlight: number;
  /** Always admitted, however slow the answers (a cold start, a quiet floor). */
  minInFlight: number;
  initialRatePerSecond: number;
  now?: () => number;
}

export class Admission {
  private inFlight = 0;
  /** Answers per 250 ms bucket over the last 2 s. */
  private readonly buckets = new Array<number>(8).fill(0);
  private bucketAt = 0;
  private rate: number;
  private busySince = 0;

  constructor(private readonly opts: AdmissionOptions) {
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

  /** The commands of new work this process may wait for at once now. */
  capacity(): number {
    return Math.min(this.opts.maxInFlight, Math.max(this.opts.minInFlight, Math.floor((this.rate * this.opts.maxWaitMs) / 1000)));
  }

  /** Commands waiting now. */
  waiting(): number {
    return this.inFlight;
  }

  /**
   * The 503 a command of this name would get now, or null when it would be admitted: the same policy
   * asked before the request's other work (authentication, validation, reads), so that under overload
   * a refusal costs the API as little as it can (docs/operations.md "Overload").
   */
  refusal(name: CommandName): AppError | null {
    const limit = Math.min(this.opts.maxInFlight, this.capacity() * (FINISHING_COMMANDS.has(name) ? FINISHING_HEADROOM : 1));
    if (this.inFlight < limit) return null;
    return new AppError('service-unavailable', `The sorting service is at capacity (${this.inFlight} commands waiting); nothing was changed. Retry in a moment.`, {
      headers: { 'Retry-After': '1' },
    });
  }

  /**
   * Admits the command or throws the 503; an admitted command calls the answer once, when its
   * outcome (of any kind) is known.
   */
  admit(name: CommandName): () => void {
    const refused = this.refusal(name);
    if (refused) throw refused;
    if (this.inFlight === 0) this.busySince = this.now();
    this.inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight--;
      const windowRate = this.countAnswer();
      this.rate = this.now() - this.busySince >= WINDOW_MS ? windowRate : Math.max(this.rate, windowRate);
    };
  }
}
