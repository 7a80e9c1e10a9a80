import { AppError } from '../errors/app-error';
import { FINISHING_COMMANDS, type CommandName } from './commands';

/**
 * The one admission policy of the command client (docs/api.md §1, 503). A command waits in the queue
 * of its wall's partition, and each partition runs one command at a time: a partition that holds two
 * busy walls is slower to answer than the others however idle they are. So the policy is kept per
 * partition. A command is admitted only while the commands this process already waits for on its
 * partition would, at the rate that partition's answers have been arriving, all be answered within
 * `maxWaitMs`, and while the oldest of them has waited less than that; never beyond `maxInFlight` in the
 * whole process (a hard bound on memory). Beyond that the caller gets 503 `service-unavailable` with
 * `Retry-After` at once, instead of a request held while the partition's backlog grows.
 *
 * A partition's rate is counted over the last 2 s at each of its answers. It only replaces the estimate
 * when the partition has been busy (commands waiting) for the whole window; otherwise it can only raise
 * it. An idle spell means no work, not a slow partition, so a burst after a pause is judged by the last
 * busy rate. Until the first answers `initialRatePerSecond` stands in; a partition's capacity is never
 * below `minInFlight` commands waiting (new work: half of them), unless the oldest waits too long.
 *
 * Work in hand goes first: a confirm, cancel, swap, release or session stop (FINISHING_COMMANDS)
 * finishes something a person already started, and shedding it leaves a slot held while the floor
 * retries. Those are admitted up to the whole of `maxWaitMs`; new work (a scan, a connect, a renew, a
 * wall edit) sheds at NEW_WORK_SHARE of it, so under overload the service keeps finishing what it
 * started instead of starting more, and no command expects to wait longer than `maxWaitMs`.
 */
const WINDOW_MS = 2000;
const BUCKET_MS = 250;
const NEW_WORK_SHARE = 0.5;

export interface AdmissionOptions {
  /** COMMAND_MAX_WAIT_MS: the longest a command may expect to wait. */
  maxWaitMs: number;
  /** COMMAND_MAX_IN_FLIGHT: never more waiting in the process than this, whatever the rate. */
  maxInFlight: number;
  /** A partition's least capacity, however slow its answers (a cold start, a quiet floor). */
  minInFlight: number;
  /** A partition's rate until its first answers. */
  initialRatePerSecond: number;
  /** QUEUE_PARTITIONS: the partitions a command may go to. */
  partitions: number;
  now?: () => number;
}

/** One partition's commands as this process sees them. */
class Lane {
  inFlight = 0;
  /** Answers per 250 ms bucket over the last 2 s. */
  readonly buckets = new Array<number>(WINDOW_MS / BUCKET_MS).fill(0);
  bucketAt = 0;
  busySince = 0;
  /** When each waiting command was admitted, oldest first (a Map keeps the order of insertion). */
  readonly admittedAt = new Map<number, number>();

  constructor(public rate: number) {}

  oldestAt(): number | undefined {
    for (const at of this.admittedAt.values()) return at;
    return undefined;
  }

  /** Counts one answer at `now` and returns the answers per second over the window. */
  countAnswer(now: number): number {
    const slot = Math.floor(now / BUCKET_MS);
    const n = this.buckets.length;
    if (slot - this.bucketAt >= n) this.buckets.fill(0);
    else for (let s = this.bucketAt + 1; s <= slot; s++) this.buckets[s % n] = 0;
    this.bucketAt = Math.max(this.bucketAt, slot);
    this.buckets[this.bucketAt % n]++;
    let sum = 0;
    for (const b of this.buckets) sum += b;
    return sum / (WINDOW_MS / 1000);
  }
}

export class Admission {
  private inFlight = 0;
  private readonly lanes = new Map<number, Lane>();
  private ticket = 0;

  constructor(private readonly opts: AdmissionOptions) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private lane(partition: number): Lane {
    let lane = this.lanes.get(partition);
    if (!lane) {
      lane = new Lane(this.opts.initialRatePerSecond);
      this.lanes.set(partition, lane);
    }
    return lane;
  }

  private static share(name: CommandName): number {
    return FINISHING_COMMANDS.has(name) ? 1 : NEW_WORK_SHARE;
  }

  /** The commands a partition answering at `rate` per second may hold waiting: finishing ones; new work sheds at its share. */
  private capacityAt(rate: number): number {
    return Math.min(this.opts.maxInFlight, Math.max(this.opts.minInFlight, Math.floor((rate * this.opts.maxWaitMs) / 1000)));
  }

  private limit(rate: number, share: number): number {
    return share === 1 ? this.capacityAt(rate) : Math.max(1, Math.floor(this.capacityAt(rate) * share));
  }

  /** The commands a partition may hold waiting now (finishing ones; new work sheds at a share of it). */
  capacity(partition: number): number {
    return this.capacityAt(this.lanes.get(partition)?.rate ?? this.opts.initialRatePerSecond);
  }

  /** Commands waiting now, in the process or on one partition. */
  waiting(partition?: number): number {
    return partition === undefined ? this.inFlight : (this.lanes.get(partition)?.inFlight ?? 0);
  }

  private refused(waiting: number): AppError {
    return new AppError('service-unavailable', `The sorting service is at capacity (${waiting} commands waiting); nothing was changed. Retry in a moment.`, {
      headers: { 'Retry-After': '1' },
    });
  }

  /**
   * The 503 a command of this name would get now, or null when it would be admitted. With a partition:
   * the policy itself. Without (its wall not known yet): only what holds for every partition, the
   * process's ceiling and the sum of the partitions' limits, asked before the request's other work
   * (authentication, validation, reads), so that under a general overload a refusal costs the API as
   * little as it can (docs/operations.md "Overload").
   */
  refusal(name: CommandName, partition?: number): AppError | null {
    if (this.inFlight >= this.opts.maxInFlight) return this.refused(this.inFlight);
    const share = Admission.share(name);
    if (partition === undefined) {
      // Refused here only if every partition would refuse it: the process's commands beyond the sum of
      // the partitions' limits, or every partition's oldest command waiting too long.
      let limit = 0;
      let late = 0;
      const now = this.now();
      for (let p = 0; p < this.opts.partitions; p++) {
        const lane = this.lanes.get(p);
        limit += this.limit(lane?.rate ?? this.opts.initialRatePerSecond, share);
        if (lane && this.tooOld(lane, share, now)) late++;
      }
      return this.inFlight >= limit || late === this.opts.partitions ? this.refused(this.inFlight) : null;
    }
    const lane = this.lanes.get(partition);
    if (!lane) return null;
    if (lane.inFlight >= this.limit(lane.rate, share) || this.tooOld(lane, share, this.now())) return this.refused(lane.inFlight);
    return null;
  }

  /** A backlog the rate has not caught up with yet (the partition slowed down): its oldest command says so. */
  private tooOld(lane: Lane, share: number, now: number): boolean {
    const oldest = lane.oldestAt();
    return oldest !== undefined && now - oldest >= this.opts.maxWaitMs * share;
  }

  /**
   * Admits the command for its partition or throws the 503; an admitted command calls the answer once,
   * when its outcome (of any kind) is known.
   */
  admit(name: CommandName, partition: number): () => void {
    const refused = this.refusal(name, partition);
    if (refused) throw refused;
    const lane = this.lane(partition);
    const at = this.now();
    if (lane.inFlight === 0) lane.busySince = at;
    lane.inFlight++;
    this.inFlight++;
    const ticket = ++this.ticket;
    lane.admittedAt.set(ticket, at);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      lane.inFlight--;
      this.inFlight--;
      lane.admittedAt.delete(ticket);
      const now = this.now();
      const windowRate = lane.countAnswer(now);
      lane.rate = now - lane.busySince >= WINDOW_MS ? windowRate : Math.max(lane.rate, windowRate);
    };
  }
}
