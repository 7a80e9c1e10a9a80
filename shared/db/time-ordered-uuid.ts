import { randomFillSync } from 'node:crypto';

/*
 * Time-ordered UUIDs (version 7, RFC 9562) for the ids the service makes and PostgreSQL indexes: command
 * ids (applied_command's primary key) and event ids (outbox_event's and stats_counted_event's unique
 * keys). A random (version 4) key lands on a random leaf of its index: on a floor's tables, days
 * of rows, every insert touches a leaf page of its own, which after each checkpoint costs a whole-page
 * image in the WAL (about 4.9 kB an insert against 0.2 kB, docs/benchmarks.md "Keys in time order"), and a
 * read from disk once the index outgrows the cache. A version 7 id starts with its millisecond, so the
 * ids of the last seconds share the index's last leaves, as a sequence's would. The other bits are a
 * counter that starts at a random value and 62 random bits: ids made by different processes in the same
 * millisecond do not collide. Neither kind of id is a secret (session tokens are made otherwise).
 */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Random bytes drawn 4 kB at a time: one call to the system's generator per 409 ids. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function random10(): number {
  if (poolAt + 10 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 10;
  return at;
}

/** The millisecond of the last id and its 12-bit counter (`rand_a`, RFC 9562 §6.2 method 1). */
let lastMs = -1;
let counter = 0;

/**
 * A version 7 UUID: 48 bits of Unix milliseconds, the version, a 12-bit counter, the variant and 62
 * random bits. Ids made by one process sort in the order they were made: within a millisecond the counter
 * (started at a random value below 2048) goes up, and when it runs out or the clock steps back, the id
 * takes the next millisecond of the last one.
 */
export function uuidv7(now: number = Date.now()): string {
  // Ten random bytes: eight for the id's random part, two for a new millisecond's counter.
  const r = random10();
  if (now > lastMs) {
    lastMs = now;
    counter = ((pool[r + 8]! << 8) | pool[r + 9]!) & 0x7ff;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const ms = lastMs;
  // 48 bits of milliseconds: the high 16 and the low 32 (bitwise operators work on 32 bits).
  const high = Math.floor(ms / 0x1_0000_0000);
  const low = ms >>> 0;
  return (
    HEX[(high >>> 8) & 0xff]! + HEX[high & 0xff]! + HEX[(low >>> 24) & 0xff]! + HEX[(low >>> 16) & 0xff]! + '-' +
    HEX[(low >>> 8) & 0xff]! + HEX[low & 0xff]! + '-' +
    HEX[0x70 | (counter >>> 8)]! + HEX[counter & 0xff]! + '-' +
    HEX[0x80 | (pool[r]! & 0x3f)]! + HEX[pool[r + 1]!]! + '-' +
    HEX[pool[r + 2]!]! + HEX[pool[r + 3]!]! + HEX[pool[r + 4]!]! + HEX[pool[r + 5]!]! + HEX[pool[r + 6]!]! + HEX[pool[r + 7]!]!
  );
}

/** The millisecond a version 7 UUID was made in (for tests and diagnostics). */
export function uuidv7Time(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
