import { TtlCache } from '../../../../shared/cache/ttl-cache';
import type { WallViewRow } from './wall-view.queries';

/**
 * What GET /walls/{id} last read of each wall, kept until the wall changes (docs/architecture.md, "The
 * wall view cache"). Hubs poll every wall of a floor every few seconds, and most walls do not change
 * between two polls (a wave on some walls, the others waiting): such a read is answered from memory,
 * without a PostgreSQL round trip; a wall that changed since is read again.
 *
 * A wall is dropped from it:
 * - when a command of the wall is answered (`commandAnswered`, on this process's own commands, before
 *   their callers are answered), when the sorting worker that ran a command of the wall says so on the
 *   changes channel (`heard`: a command any process sent, the session sweep's among them), and when the
 *   outbox relay names the wall there before publishing its events to the hubs;
 * - every wall, on a change this API process wrote outside the commands (`changedOutside`: the console's
 *   writes, printers, employees, uploads), here and, through the channel, in the other API processes;
 * - every wall, whenever the channel may have missed a message (its connection lost, until it is
 *   subscribed again): meanwhile nothing is kept or answered from memory;
 * - after `maxAgeMs` whatever happened: the bound on what the channel cannot see (SQL by hand).
 *
 * A read that began before a change it was not told of in time (a change announced while the read was
 * on its way) is answered but not kept. The rows are kept as PostgreSQL gave them; what a viewer may see
 * of them (other sorters' session tokens) is decided on every answer (get-wall.use-case.ts).
 */
export class WallViewCache {
  private readonly entries: TtlCache<number, { clientId: number; row: WallViewRow }>;
  /** Counts the changes heard: a read remembers it when it begins, and is kept only if none of its wall came since. */
  private changes = 0;
  /** The count at each wall's last change, and at the last change of every wall. */
  private readonly changedAt = new Map<number, number>();
  private allChangedAt = 0;
  /** The changes channel is subscribed and has not been lost since (set by the owner, start-api.ts). */
  private live = false;
  /** Reads answered from memory and from PostgreSQL since the start (the `wall_view_reads_total` metric). */
  private readonly answered = { memory: 0, database: 0 };

  constructor(
    private readonly maxAgeMs: number,
    /** Tells the other API processes that every wall changed (`changedOutside`): a publish on the changes channel; never rejects. */
    private readonly announce: () => Promise<void> = async () => undefined,
    /** Walls kept at most (a wall's view is a few KB to a few tens of KB: its slots, sessions and pending scans). */
    max = 1_000,
  ) {
    this.entries = new TtlCache({ max, ttlMs: maxAgeMs });
  }

  /** The wall's view: from memory when nothing of the wall changed since it was read, else read by `load` (and kept). */
  async read(clientId: number, wallId: number, load: () => Promise<WallViewRow | undefined>): Promise<WallViewRow | undefined> {
    const usable = this.usable();
    if (usable) {
      const hit = this.entries.get(wallId);
      // A wall of another client is read (and refused) as if nothing were kept.
      if (hit && hit.clientId === clientId) {
        this.answered.memory++;
        return hit.row;
      }
    }
    this.answered.database++;
    const began = this.changes;
    const row = await load();
    if (row && usable && this.usable() && !this.changedSince(wallId, began)) this.entries.set(wallId, { clientId, row });
    return row;
  }

  /** Reads answered from memory and from PostgreSQL since the start. */
  reads(): { memory: number; database: number } {
    return { ...this.answered };
  }

  /** A command of the wall was answered (this process sent it): its change, if any, is committed. */
  commandAnswered(wallId: number): void {
    this.wallChanged(wallId);
  }

  /** A message of the changes channel (shared/events/channels.ts, wallViewChangedMessage): walls, or every wall. */
  heard(message: string): void {
    if (message.startsWith('w:')) {
      const wallIds = message.slice(2).split(',').map(Number);
      if (wallIds.every((id) => Number.isSafeInteger(id))) {
        for (const id of wallIds) this.wallChanged(id);
        return;
      }
    }
    // Every wall: "*", and anything not understood (a newer process's message), to be safe.
    this.everyWallChanged();
  }

  /**
   * This process wrote something outside the commands that a wall's view may show: every wall here at
   * once, and in the other API processes once the returned promise resolves (their answer may wait for it).
   */
  changedOutside(): Promise<void> {
    this.everyWallChanged();
    return this.announce();
  }

  /** The changes channel is subscribed (again): from now on no change is missed. What was kept before is dropped. */
  subscribed(): void {
    this.everyWallChanged();
    this.live = true;
  }

  /** The changes channel's connection is lost: changes may be missed until `subscribed`. */
  lost(): void {
    this.live = false;
    this.everyWallChanged();
  }

  private usable(): boolean {
    return this.maxAgeMs > 0 && this.live;
  }

  private changedSince(wallId: number, count: number): boolean {
    return this.allChangedAt > count || (this.changedAt.get(wallId) ?? 0) > count;
  }

  private wallChanged(wallId: number): void {
    this.changes++;
    this.entries.delete(wallId);
    this.changedAt.set(wallId, this.changes);
  }

  private everyWallChanged(): void {
    this.changes++;
    this.allChangedAt = this.changes;
    this.changedAt.clear();
    this.entries.clear();
  }
}
