import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AppError } from '../errors/app-error';
import { FINISHING_COMMANDS, type CommandName } from './commands';
import { admissionRefusals } from './command-metrics';

/**
 * The one admission policy of the command client (docs/api.md §1, 503; docs/operations.md "Overload").
 * A command waits in the queue of its wall's partition, and each partition's worker serves its commands
 * in order (a wall's one group at a time), so the policy is kept per partition and asks what the
 * service can actually do:
 *
 * - Service time: the sorting worker reports with each answer how long it spent on the command (from
 *   taking it to its answer, whatever kept it: the CPU, PostgreSQL, an fsync; of a group written
 *   together, the first answer carries the group's time and the others next to nothing,
 *   partition-host.ts). A partition's estimate is a moving average of those. A command ahead is costed
 *   at that average or at the mean of the last RECENT_REPORTS reports, whichever is more: the moving
 *   average sinks from a group's last answer to the next group's first, the mean of more answers than
 *   a group holds does not. The answer rate says nothing about what a partition could do: at a light
 *   load it is the offered rate, however fast each command runs, and with several API processes each
 *   sees only its share of a partition's answers. Until a partition's first answer the average of the
 *   others (or `initialServiceMs`) stands in; an idle spell keeps the last estimate.
 * - The expected wait of a command, with others waiting on its partition in this process, is what the
 *   slowdown (below) is fitted to: a command alone's time to its answer, plus each waiting command but
 *   the one in service at that service time times the slowdown (Lane.expectedWaitMs); plus how late
 *   this process's own event loop runs (the CPU the API cannot get or keeps busy: a command's answer
 *   waits for the loop as well). A command is admitted while that stays within its budget.
 * - The slowdown: a command ahead does not cost its service time. On a saturated host it costs more
 *   (the worker shares its CPU between partitions, Redis and the API their cores with it). On a
 *   partition that writes in groups it costs less: the worker holds several of the partition's
 *   commands at once, the commands of a wall that wait are written in one statement and the walls of a
 *   partition are worked side by side, so the commands ahead are answered together rather than one
 *   after the other. Each answer of a command admitted behind others tells how much: the time it was
 *   held (admission to answer) less that of a command alone on the partition (its own way there and
 *   back, which overlaps the others', and with it the rest of the command in service when it came)
 *   against the other commands ahead times the service time the worker reported for the answers that
 *   came while it waited. Those, not the estimate at its admission: a service time that rose meanwhile
 *   is in the estimate already, and counted in the slowdown too it was counted twice (a closed loop
 *   starting on cold walls had its waits predicted at three times what they were, and scans refused).
 *   The slowdown is the ratio of the moving averages of the two, so that a command behind many weighs
 *   as its wait does and the fit holds for deep backlogs, where admission decides; between MIN_SLOWDOWN
 *   and MAX_SLOWDOWN, and 1 until answers tell.
 * - The oldest waiting command: one that has waited its budget already, with the partition's floor
 *   (below) reached, is a backlog that is really late (a partition that slowed down before the estimate
 *   did, commands of other API processes ahead of it, a holder that is gone), and nothing more is
 *   admitted to that partition until it is answered.
 * - The process's event loop itself: while it runs later than a budget, the process is out of CPU, and
 *   that work is refused whatever the partitions say.
 * - A person's one request: a sorter or a shipper waits for the answer to a request before sending the
 *   next (the scanner's page is busy meanwhile), so a person with nothing else waiting is a floor
 *   working as fast as the service answers it, not a backlog that grows. Refusing them sheds no load
 *   (the person re-sends after the Retry-After) and only stops them: a person's command with none of
 *   theirs waiting in this process is admitted whatever the estimate, as long as the partition's oldest
 *   command has waited less than the whole of `maxWaitMs` (a backlog late by that much is refused
 *   whoever sends to it). A second command of the same person while one waits (a client that does not
 *   wait for its answers) is judged as any other. People are counted only where the caller names the
 *   person (admit's `person`); the check before the wall is known does not ask.
 *
 * The budgets: work in hand (FINISHING_COMMANDS: a confirm, cancel, swap, release or session stop, which
 * finishes what a person started; shedding it leaves a slot held while the floor retries) has the whole
 * of `maxWaitMs`; new work (a scan, a connect, a renew, a wall edit) NEW_WORK_SHARE of it. So under
 * overload the service finishes what it started before it starts more, and no command expects to wait
 * longer than `maxWaitMs`. `minInFlight` commands per partition (new work: its share) are admitted
 * whatever the estimate and the oldest's age (a cold partition, one slow answer: the first commands
 * after a start take a few hundred ms, and a sign-in burst at the start of a shift must not be refused
 * for it), never beyond the loop's budget.
 * `maxInFlight` bounds the whole process (memory), whatever else holds.
 *
 * A refusal costs a few comparisons, and the check before the wall is known (before authentication)
 * refuses only what every partition would, without telling a person's only command apart. Its
 * `Retry-After` spreads the re-sends: the time the backlog needs to drain (at least a second), drawn
 * at random between once and twice that, so that a floor refused at once does not come back at once;
 * the drawn milliseconds travel in the problem as `retryAfterMs` for clients that can wait less than
 * whole seconds.
 */
const NEW_WORK_SHARE = 0.5;
/** Weight of the newest service time in a partition's average: about the last ten answers count. */
const SERVICE_WEIGHT = 0.2;
/** The service times a command ahead is costed from: more than the commands of a group (PARTITION_JOBS_IN_HAND). */
const RECENT_REPORTS = 20;
/** Weight of the newest answer in the averages of the slowdown and of a command alone: about the last twenty. */
const SLOWDOWN_WEIGHT = 0.05;
/** A command ahead is never counted at more than this many times its service time, nor at less than this fraction of it. */
const MAX_SLOWDOWN = 10;
const MIN_SLOWDOWN = 0.1;
const MIN_RETRY_MS = 1000;
/** The longest Retry-After drawn is twice this. */
const MAX_RETRY_MS = 15_000;

/** A moving average of SLOWDOWN_WEIGHT; none yet (NaN): the first value. */
const average = (avg: number, value: number) => (Number.isNaN(avg) ? value : avg + SLOWDOWN_WEIGHT * (value - avg));

export type RefusalReason = 'ceiling' | 'loop' | 'late' | 'wait';

export interface AdmissionOptions {
  /** COMMAND_MAX_WAIT_MS: the longest a command may expect to wait. */
  maxWaitMs: number;
  /** COMMAND_MAX_IN_FLIGHT: never more waiting in the process than this. */
  maxInFlight: number;
  /** Commands a partition may always hold waiting (new work: its share), however slow its estimate. */
  minInFlight: number;
  /** A partition's service time until the first answer in the process. */
  initialServiceMs: number;
  /** QUEUE_PARTITIONS: the partitions a command may go to. */
  partitions: number;
  /** How late this process's event loop runs now, ms (eventLoopDelay()); none: 0. */
  loopDelayMs?: () => number;
  now?: () => number;
  random?: () => number;
}

/** One partition's commands as this process sees them. */
class Lane {
  inFlight = 0;
  /** The service times reported on the partition so far, and how many: those of the answers between two moments. */
  reportedMs = 0;
  reports = 0;
  /** The last RECENT_REPORTS service times (at first the partition's first estimate), and their sum. */
  private readonly recent: Float64Array;
  private recentMs: number;
  /** When each waiting command was admitted, oldest first (a Map keeps the order of insertion). */
  readonly admittedAt = new Map<number, number>();

  constructor(
    public serviceMs: number,
    readonly slowdown: Slowdown,
    /** The average time to the answer of a command admitted with nothing waiting on the partition: its way there and back (none yet: NaN). */
    public aloneMs: number,
  ) {
    this.recent = new Float64Array(RECENT_REPORTS).fill(serviceMs);
    this.recentMs = RECENT_REPORTS * serviceMs;
  }

  report(serviceMs: number): void {
    this.serviceMs += SERVICE_WEIGHT * (serviceMs - this.serviceMs);
    const slot = this.reports % RECENT_REPORTS;
    this.recentMs += serviceMs - this.recent[slot]!;
    this.recent[slot] = serviceMs;
    this.reportedMs += serviceMs;
    this.reports++;
  }

  /**
   * The service time a command ahead is costed at: the moving average, which follows a rise within a
   * few answers, or the mean of the last RECENT_REPORTS, whichever is more. A group's answers report its
   * time on the first and next to nothing on the others, so the moving average sinks from a group's
   * last answer to the next group's first; the mean of more answers than a group holds does not.
   */
  aheadServiceMs(): number {
    return Math.max(this.serviceMs, this.recentMs / RECENT_REPORTS);
  }

  /** What a command ahead is expected to cost. */
  costMs(): number {
    return this.aheadServiceMs() * this.slowdown.ratio();
  }

  /**
   * How long a command admitted now is expected to wait for its answer: what the slowdown is fitted to
   * (a command alone's time, and the cost of each command ahead but the one in service, whose rest
   * overlaps it), so that the prediction and the answers that correct it measure the same thing. Until
   * a command alone has answered: every command ahead at its cost.
   */
  expectedWaitMs(): number {
    if (this.inFlight === 0) return 0;
    if (Number.isNaN(this.aloneMs)) return this.inFlight * this.costMs();
    return this.aloneMs + (this.inFlight - 1) * this.costMs();
  }

  oldestAt(): number | undefined {
    for (const at of this.admittedAt.values()) return at;
    return undefined;
  }
}

/**
 * What the commands ahead really cost against their service times: the moving averages of the time the
 * answers took beyond a command alone, and of the commands ahead times the service time reported while
 * each waited; their ratio. A ratio of averages rather than an average of ratios: a command admitted
 * behind many weighs as much as its wait, and the deep backlogs, where admission decides, are what it
 * is fitted to.
 */
class Slowdown {
  constructor(
    private extraMs = NaN,
    private modelMs = NaN,
  ) {}

  add(extraMs: number, modelMs: number): void {
    this.extraMs = average(this.extraMs, extraMs);
    this.modelMs = average(this.modelMs, modelMs);
  }

  /** The factor on a command ahead's service time: 1 until an answer tells. */
  ratio(): number {
    if (!(this.modelMs > 0)) return 1;
    return Math.min(MAX_SLOWDOWN, Math.max(MIN_SLOWDOWN, this.extraMs / this.modelMs));
  }

  copy(): Slowdown {
    return new Slowdown(this.extraMs, this.modelMs);
  }
}

/** A command admitted: `served` with the worker's service time when it reports one, `done` once its outcome is known. */
export interface Admitted {
  served(serviceMs: number): void;
  done(): void;
}

export class Admission {
  private inFlight = 0;
  private readonly lanes = new Map<number, Lane>();
  /** The commands waiting per person, for the people named at admission. */
  private readonly people = new Map<number, number>();
  private ticket = 0;
  /** The process's average service time over every partition: a cold partition's first estimate. */
  private serviceMs: number;
  /** The process's averages of the slowdown and of a command alone: a cold partition's first. */
  private readonly slowdown = new Slowdown();
  private aloneMs = NaN;

  constructor(private readonly opts: AdmissionOptions) {
    this.serviceMs = opts.initialServiceMs;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private lane(partition: number): Lane {
    let lane = this.lanes.get(partition);
    if (!lane) {
      lane = new Lane(this.serviceMs, this.slowdown.copy(), this.aloneMs);
      this.lanes.set(partition, lane);
    }
    return lane;
  }

  private static share(name: CommandName): number {
    return FINISHING_COMMANDS.has(name) ? 1 : NEW_WORK_SHARE;
  }

  /** A partition's service time estimate, ms. */
  serviceTime(partition: number): number {
    return this.lanes.get(partition)?.serviceMs ?? this.serviceMs;
  }

  /** Commands waiting now, in the process or on one partition. */
  waiting(partition?: number): number {
    return partition === undefined ? this.inFlight : (this.lanes.get(partition)?.inFlight ?? 0);
  }

  /** What a command of `share` on `lane` (none: nothing waits there) would meet: a reason to refuse and the wait it expects. */
  private judge(lane: Lane | undefined, share: number, loopMs: number, now: number, alone = false): { reason: RefusalReason | null; waitMs: number } {
    const budget = this.opts.maxWaitMs * share;
    const waitMs = loopMs + (lane ? lane.expectedWaitMs() : 0);
    if (loopMs >= budget) return { reason: 'loop', waitMs };
    if (!lane || lane.inFlight === 0) return { reason: null, waitMs };
    // Below the floor a command is admitted whatever the estimate or the oldest's age: one slow command
    // (a process's or a wall's first, one slow commit) is no backlog. A person's only command is judged by
    // the oldest's age alone, against the whole wait.
    const floor = Math.max(1, Math.floor(this.opts.minInFlight * share));
    if (!alone && lane.inFlight < floor) return { reason: null, waitMs };
    const lateAfterMs = alone ? this.opts.maxWaitMs : budget;
    const oldest = lane.oldestAt();
    // How long a late backlog still needs is not known: at least its budget.
    if (oldest !== undefined && now - oldest >= lateAfterMs) return { reason: 'late', waitMs: Math.max(waitMs, lateAfterMs) };
    if (alone) return { reason: null, waitMs };
    if (waitMs > budget) return { reason: 'wait', waitMs };
    return { reason: null, waitMs };
  }

  private refused(reason: RefusalReason, waiting: number, drainMs: number): AppError {
    admissionRefusals.inc({ reason });
    const random = this.opts.random ?? Math.random;
    const baseMs = Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, drainMs));
    // In [base, 2 × base): rounding a draw just under twice the base must not reach it.
    const retryAfterMs = Math.min(Math.round(baseMs * (1 + random())), Math.ceil(2 * baseMs) - 1);
    return new AppError('service-unavailable', `The sorting service is at capacity (${waiting} commands waiting); nothing was changed. Retry in a moment.`, {
      headers: { 'Retry-After': String(Math.max(1, Math.round(retryAfterMs / 1000))) },
      extensions: { retryAfterMs },
    });
  }

  /**
   * The 503 a command of this name would get now, or null when it would be admitted. With a partition:
   * the policy itself. Without (its wall not known yet): only what holds for every partition, asked
   * before the request's other work (authentication, validation, reads), so that under a general
   * overload a refusal costs the API as little as it can.
   */
  refusal(name: CommandName, partition?: number, person?: number): AppError | null {
    if (this.inFlight >= this.opts.maxInFlight) return this.refused('ceiling', this.inFlight, (this.inFlight * this.serviceMs) / Math.max(1, this.lanes.size));
    const share = Admission.share(name);
    const loopMs = this.opts.loopDelayMs?.() ?? 0;
    const now = this.now();
    if (partition !== undefined) {
      const lane = this.lanes.get(partition);
      const alone = person !== undefined && !this.people.has(person);
      const { reason, waitMs } = this.judge(lane, share, loopMs, now, alone);
      return reason ? this.refused(reason, lane?.inFlight ?? 0, waitMs) : null;
    }
    // Refused here only if every partition would refuse it; the Retry-After of the one that drains first.
    // A person's only command is not told apart here: under a general overload this check is what keeps
    // a refusal cheap (an open flood let on to be authenticated first kept the API's loop seconds late).
    if (this.lanes.size < this.opts.partitions) {
      const { reason, waitMs } = this.judge(undefined, share, loopMs, now);
      return reason ? this.refused(reason, this.inFlight, waitMs) : null;
    }
    let drainMs = Infinity;
    let because: RefusalReason = 'wait';
    for (const lane of this.lanes.values()) {
      const { reason, waitMs } = this.judge(lane, share, loopMs, now);
      if (!reason) return null;
      if (waitMs < drainMs) [drainMs, because] = [waitMs, reason];
    }
    return this.refused(because, this.inFlight, drainMs);
  }

  /**
   * Admits the command for its partition or throws the 503; an admitted command reports its service
   * time when the worker gives one, and calls `done` once, when its outcome (of any kind) is known.
   */
  admit(name: CommandName, partition: number, person?: number): Admitted {
    const refused = this.refusal(name, partition, person);
    if (refused) throw refused;
    const lane = this.lane(partition);
    if (person !== undefined) this.people.set(person, (this.people.get(person) ?? 0) + 1);
    // The commands ahead, and the service times reported so far: those reported while it waits are what the commands ahead took.
    const ahead = lane.inFlight;
    const { reportedMs, reports } = lane;
    lane.inFlight++;
    this.inFlight++;
    const ticket = ++this.ticket;
    const admittedAt = this.now();
    lane.admittedAt.set(ticket, admittedAt);
    let done = false;
    return {
      served: (serviceMs) => {
        if (!Number.isFinite(serviceMs) || serviceMs < 0) return;
        const heldMs = this.now() - admittedAt;
        if (ahead === 0) {
          lane.aloneMs = average(lane.aloneMs, heldMs);
          this.aloneMs = average(this.aloneMs, heldMs);
        } else if (!Number.isNaN(lane.aloneMs)) {
          // The service time of the answers that came while it waited (none came: the estimate now), not
          // the one at its admission: a rise meanwhile is in the estimate already. The command first in
          // line was in service when it came: its rest overlaps this one's own way, as a command alone has it.
          const duringMs = lane.reports > reports ? (lane.reportedMs - reportedMs) / (lane.reports - reports) : lane.serviceMs;
          const modelMs = (ahead - 1) * duringMs;
          if (modelMs > 0) {
            const extraMs = Math.max(0, heldMs - lane.aloneMs);
            lane.slowdown.add(extraMs, modelMs);
            this.slowdown.add(extraMs, modelMs);
          }
        }
        lane.report(serviceMs);
        this.serviceMs += SERVICE_WEIGHT * (serviceMs - this.serviceMs);
      },
      done: () => {
        if (done) return;
        done = true;
        lane.inFlight--;
        this.inFlight--;
        lane.admittedAt.delete(ticket);
        if (person !== undefined) {
          const left = (this.people.get(person) ?? 1) - 1;
          if (left > 0) this.people.set(person, left);
          else this.people.delete(person);
        }
      },
    };
  }
}

/**
 * How late this process's event loop runs: the mean delay of a timer over the last `intervalMs`,
 * read once per interval (perf_hooks' histogram; nothing per request). For `loopDelayMs`.
 */
export function eventLoopDelay(intervalMs = 500): { delayMs(): number; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let delayMs = 0;
  const timer = setInterval(() => {
    // The histogram counts from when a timer was due; its resolution is no delay.
    delayMs = histogram.count ? Math.max(0, histogram.mean / 1e6 - 10) : 0;
    histogram.reset();
  }, intervalMs).unref();
  return {
    delayMs: () => delayMs,
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
