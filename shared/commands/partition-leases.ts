import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { RedisConnection as Redis } from '../redis/connection';
import { keepSubscribed } from '../redis/subscriber';
import type { Logger } from '../logging/logger';
import { foldedWarning } from '../logging/logger';
import { commandQueueName } from './partitioning';

/**
 * Which process holds which command partition (docs/architecture.md "The wall actor"). Each sorting
 * process registers itself with a heartbeat; the live processes share the partitions fairly, at most
 * ceil(partitions / live) each, through one lease per partition in Redis:
 *
 * - a lease is a key in its partition's hash slot (`<prefix>:{wall-commands-N}:lease`, so a Redis
 *   Cluster keeps it beside the partition's queue) holding the holder's token, with a TTL; the holder
 *   extends it every TTL/5 with a compare-and-extend script and loses it when the script finds
 *   another token (or none and it cannot take it back);
 * - a process above its share hands partitions back once their jobs in hand are finished; one that
 *   stops hands all back at once and says so on a channel, so the others take them within a tick;
 * - a process that cannot reach Redis keeps a lease only until the TTL it last extended runs out.
 *
 * A lease decides who runs a partition's worker; it does not decide what is written: every command's
 * write is fenced by its wall's version, so a holder that lost its lease unknowingly cannot apply a
 * stale decision (workers/sorting/actor).
 */

// Takes a free lease or extends the holder's own (1), or answers 0 when another holds it. The same
// script renews: a lease that is gone while its holder still holds it validly (the TTL it last set has
// not run out) was lost by Redis (restarted without its data, a failover to a replica that lacked it):
// nobody else holds it, so the holder takes it back and goes on serving (2).
const RENEW = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 2`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`;

// Registers the token until now + TTL (the server's clock, so holders on several machines agree),
// forgets the processes whose heartbeat ran out, and answers how many are alive and whether the token
// was registered before this heartbeat.
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local known = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return {redis.call('ZCARD', KEYS[1]), known and 1 or 0}`;

// A dead holder's lease of one partition deleted at once (its token begins with the dead process's
// `host:pid:`, ARGV[1]), and the jobs it had in hand (BullMQ's processedBy, ARGV[2], on each job of the
// partition's active list) marked stalled without a lock, and the stalled check's pause lifted: the
// next holder's worker hands them out again as it starts, instead of once their locks run out (BullMQ's
// stalled check moves a job of its stalled set that has no lock back to wait). Every key is in the
// partition's hash slot. Answers { lease released (0/1), jobs marked }.
const HAND_OVER_DEAD = `
local marked = 0
for _, id in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  if redis.call('HGET', ARGV[3] .. id, 'pb') == ARGV[2] then
    redis.call('DEL', ARGV[3] .. id .. ':lock')
    redis.call('SADD', KEYS[3], id)
    marked = marked + 1
  end
end
if marked > 0 then redis.call('DEL', KEYS[4]) end
local holder = redis.call('GET', KEYS[1])
if holder and string.sub(holder, 1, string.len(ARGV[1])) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return {1, marked}
end
return {0, marked}`;

// Forgets a dead process's tokens in the registry of holders (ARGV[1]: its `host:pid:`).
const FORGET_DEAD = `
local n = 0
for _, t in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(t, 1, string.len(ARGV[1])) == ARGV[1] then redis.call('ZREM', KEYS[1], t) n = n + 1 end
end
return n`;

/**
 * A sorting process known to be dead (its supervisor saw it exit) gives up its partitions at once,
 * not when its leases run out: its leases are deleted, its jobs in hand marked stalled, it leaves the
 * registry, and the live holders are told, so they take its partitions within a round. Only a process
 * that is certainly gone may be named (a live one would go on deciding until its next renewal finds the
 * lease gone); even then the fence of each wall's version keeps two holders from deciding for one wall.
 */
export async function handOverDeadHolder(
  redis: Redis,
  opts: { prefix: string; partitions: number },
  holder: { host: string; pid: number },
): Promise<{ partitions: number[]; jobs: number }> {
  const tokenPrefix = `${holder.host}:${holder.pid}:`;
  const processedBy = `${holder.host}:${holder.pid}`;
  const released: number[] = [];
  let jobs = 0;
  for (let p = 0; p < opts.partitions; p++) {
    const queue = `${opts.prefix}:${commandQueueName(p)}`;
    const [lease, marked] = (await redis.eval(
      HAND_OVER_DEAD,
      4,
      leaseKey(opts.prefix, p),
      `${queue}:active`,
      `${queue}:stalled`,
      `${queue}:stalled-check`,
      tokenPrefix,
      processedBy,
      `${queue}:`,
    )) as [number, number];
    if (Number(lease) === 1) released.push(p);
    jobs += Number(marked);
  }
  await redis.eval(FORGET_DEAD, 1, `${opts.prefix}:sorting:holders`, tokenPrefix);
  await redis.publish(`${opts.prefix}:sorting:leases`, `dead:${tokenPrefix}`);
  return { partitions: released, jobs };
}

export interface LeaseHandlers {
  /** The partition is ours: start taking its jobs. A failure hands the lease back. */
  acquired(partition: number): Promise<void>;
  /** The partition is no longer ours (or may not be): stop at once, without waiting for anything. */
  lost(partition: number): void;
  /** We hand the partition back: finish the jobs in hand, then the lease is deleted. */
  releasing(partition: number): Promise<void>;
}

export interface LeaseOptions {
  prefix: string;
  partitions: number;
  ttlMs: number;
  log: Logger;
}

/** A holder's token: readable (host and pid, as BullMQ's processedBy) and unique per start. */
export function holderToken(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export function leaseKey(prefix: string, partition: number): string {
  return `${prefix}:${commandQueueName(partition)}:lease`;
}

/**
 * Whether every command partition is held by a sorting process now (its lease key is set): the API's
 * /readyz waits for it when the service starts (services/api/http/readiness.ts, StartGate). One EXISTS
 * per key (each in its partition's hash slot, as a Redis Cluster wants them).
 */
export function partitionsHeld(redis: Pick<Redis, 'exists'>, prefix: string, partitions: number): () => Promise<boolean> {
  return async () => {
    const held = await Promise.all(Array.from({ length: partitions }, (_, p) => redis.exists(leaseKey(prefix, p))));
    return held.every((n) => Number(n) === 1);
  };
}

export class PartitionLeases {
  readonly token = holderToken();
  /** Rounds run so far (a test waits for some to pass instead of sleeping). */
  rounds = 0;
  private readonly held = new Map<number, { validUntil: number }>();
  /** Partitions being handed back, each with its hand-over under way. */
  private readonly leaving = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  /** A heartbeat went through once: a later one that finds the token unregistered means the registry was lost. */
  private registered = false;
  private ticking: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly registry: string;
  private readonly channel: string;
  /** One warning per interval while Redis is away, not one per round. */
  private readonly unreachable: (err: Error) => void;
  private readonly notExtended: (err: Error) => void;

  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly opts: LeaseOptions,
    private readonly handlers: LeaseHandlers,
  ) {
    this.notExtended = foldedWarning(opts.log, 'partition lease could not be extended');
    this.unreachable = foldedWarning(opts.log, 'partition leases: Redis unreachable; keeping the leases held until they run out');
    this.registry = `${opts.prefix}:sorting:holders`;
    this.channel = `${opts.prefix}:sorting:leases`;
  }

  /** The partitions held now. */
  partitions(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  holds(partition: number): boolean {
    const h = this.held.get(partition);
    return h !== undefined && h.validUntil > Date.now();
  }

  /** Registers, takes a first share and ticks every TTL/5 (and whenever another holder comes or goes). */
  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string) => {
      if (channel === this.channel) this.tick();
    });
    // After a reconnect: subscribed again, and a round at once (holders may have come or gone meanwhile).
    keepSubscribed(this.subscriber, () => [this.channel], { resumed: () => void this.tick() });
    await this.subscriber.subscribe(this.channel).catch((err: unknown) => this.opts.log.warn({ err }, 'could not subscribe to partition lease changes'));
    await this.tick();
    await this.announce();
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.opts.ttlMs / 5)));
  }

  /** Runs one round (or queues one after the round under way). */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      try {
        do {
          this.again = false;
          await this.round();
        } while (this.again && !this.stopped);
      } finally {
        this.ticking = null;
      }
    })();
    return this.ticking;
  }

  private async round(): Promise<void> {
    this.rounds++;
    const { ttlMs, partitions, log } = this.opts;
    // Leases whose last extension ran out while Redis was away: someone else may hold them now.
    for (const [p, h] of this.held) {
      if (h.validUntil <= Date.now()) this.drop(p, 'its lease ran out while Redis could not be reached');
    }
    let live: number;
    let known: boolean;
    try {
      const [count, wasKnown] = (await this.redis.eval(HEARTBEAT, 1, this.registry, this.token, ttlMs)) as [number, number];
      live = Number(count);
      known = Number(wasKnown) === 1;
    } catch (err) {
      this.unreachable(err as Error);
      return;
    }
    // Registered before, unknown now: Redis lost the registry (restarted without its data), and the
    // leases with it. The others have not registered again yet, so `live` says too few: this round
    // only takes back what it held, and takes nothing of theirs.
    const registryLost = this.registered && !known;
    this.registered = true;
    const share = Math.ceil(partitions / Math.max(1, live));
    // Partitions being handed back are extended too: nobody may take one before its jobs in hand are done.
    for (const p of [...this.held.keys()]) {
      const sentAt = Date.now();
      try {
        const renewed = Number(await this.redis.eval(RENEW, 1, leaseKey(this.opts.prefix, p), this.token, ttlMs));
        const held = this.held.get(p);
        if (!held) {
          // Handed back meanwhile: a lease this round took back after the hand-over deleted it goes again.
          if (renewed === 2) await this.redis.eval(RELEASE, 1, leaseKey(this.opts.prefix, p), this.token).catch(() => undefined);
          continue;
        }
        if (renewed === 0 || (renewed === 2 && held.validUntil <= sentAt)) {
          // Another holds it; or it ran out before this round reached it, so another may have held it meanwhile.
          if (renewed === 2) await this.redis.eval(RELEASE, 1, leaseKey(this.opts.prefix, p), this.token).catch(() => undefined);
          this.drop(p, renewed === 0 ? 'another process holds its lease' : 'its lease ran out');
          continue;
        }
        held.validUntil = sentAt + ttlMs;
        if (renewed === 2) log.warn({ partition: p }, 'partition lease was gone from Redis (restarted without its data?); taken back');
      } catch (err) {
        this.notExtended(err as Error);
      }
    }
    const mine = () => this.held.size - this.leaving.size;
    if (this.stopped) return;
    if (registryLost) {
      log.warn({ holding: this.partitions() }, 'the registry of sorting processes was gone from Redis (restarted without its data?); keeping the partitions held, taking no other this round');
      return;
    }
    if (mine() > share) {
      const extra = [...this.held.keys()].filter((p) => !this.leaving.has(p)).slice(share);
      for (const p of extra) void this.release(p);
      return;
    }
    const offset = Number.parseInt(this.token.slice(-8), 16) % partitions;
    // The workers of the partitions taken start together: at a start (every partition free) each costs
    // a few Redis round trips, and one after the other they held the last partition's commands for a
    // few hundred ms after the first was taken.
    const starting: Promise<void>[] = [];
    for (let i = 0; i < partitions && mine() < share; i++) {
      const p = (offset + i) % partitions;
      if (this.held.has(p)) continue;
      const sentAt = Date.now();
      let ok = false;
      try {
        ok = Number(await this.redis.eval(RENEW, 1, leaseKey(this.opts.prefix, p), this.token, ttlMs)) !== 0;
      } catch (err) {
        log.warn({ err: (err as Error).message, partition: p }, 'partition lease could not be taken');
        break;
      }
      if (!ok) continue;
      this.held.set(p, { validUntil: sentAt + ttlMs });
      starting.push(this.startWorker(p, live));
    }
    await Promise.all(starting);
  }

  private async startWorker(p: number, live: number): Promise<void> {
    try {
      await this.handlers.acquired(p);
      this.opts.log.info({ partition: p, holders: live }, 'holding command partition');
    } catch (err) {
      this.opts.log.warn({ err, partition: p }, 'could not start the worker of a partition; handing its lease back');
      this.held.delete(p);
      await this.redis.eval(RELEASE, 1, leaseKey(this.opts.prefix, p), this.token).catch(() => undefined);
    }
  }

  private drop(partition: number, why: string): void {
    if (!this.held.has(partition)) return;
    this.held.delete(partition);
    this.leaving.delete(partition);
    this.opts.log.warn({ partition }, `lost command partition: ${why}`);
    this.handlers.lost(partition);
  }

  /** Finishes the jobs in hand, deletes the lease, and tells the other holders (once per hand-over). */
  private release(partition: number): Promise<void> {
    const under = this.leaving.get(partition);
    if (under) return under;
    if (!this.held.has(partition)) return Promise.resolve();
    const handOver = (async () => {
      try {
        await this.handlers.releasing(partition);
      } catch (err) {
        this.opts.log.warn({ err, partition }, 'the worker of a partition did not stop cleanly');
      }
      if (this.held.delete(partition)) {
        await this.redis.eval(RELEASE, 1, leaseKey(this.opts.prefix, partition), this.token).catch(() => undefined);
        this.opts.log.info({ partition }, 'handed command partition back');
      }
      this.leaving.delete(partition);
      await this.announce();
    })();
    this.leaving.set(partition, handOver);
    return handOver;
  }

  private async announce(): Promise<void> {
    await this.redis.publish(this.channel, this.token).catch(() => undefined);
  }

  /** Hands every partition back at once (each after its jobs in hand) and leaves the registry. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
    await Promise.all([...this.held.keys()].map((p) => this.release(p)));
    await this.redis.zrem(this.registry, this.token).catch(() => undefined);
    await this.announce();
  }
}
