import type { Role } from '../../../shared/db/entities/employee.entity';
import type { Orm } from '../../../shared/db/orm';
import { TtlCache } from '../../../shared/cache/ttl-cache';
import { OrmSql } from '../../../shared/db/orm-sql';
import { employeeStanding } from './employee-access.queries';

/** What the database says about a token's employee now. */
export interface CurrentAccess {
  clientId: number;
  isActive: boolean;
  roles: Role[];
  credentialsVersion: number;
}

/**
 * How long one API process trusts what it read. A change made through another process applies within
 * this (the 5 s docs/api.md promises, less a second for the read itself).
 */
export const ACCESS_CACHE_MS = 4_000;

/** How long after the hit a read behind it starts: the request it came with is answered by then. */
const READ_BEHIND_MS = 50;

/** Entries read again with a miss at most, besides the one missed. */
const REFRESH_WITH_MISS_MAX = 500;

/**
 * The employee's current standing for every authenticated request (docs/api.md §2, "Token lifetime"): deactivation, role and password changes reach existing tokens within ACCESS_CACHE_MS
 * (at most 5 s). One indexed read per employee per interval, shared by concurrent requests; a miss also
 * reads again every entry past half its lifetime (or run out within the last one), so the entries of
 * a floor's employees line up and a floor of 60 sorters costs one read per interval or two, not one per
 * sorter (each entry only gets younger: nothing is trusted longer than ACCESS_CACHE_MS).
 * A hit on an entry past half its lifetime answers from the entry and reads it again behind the request
 * (READ_BEHIND_MS later, with the others a miss would take): a token used every few seconds (a hub
 * polling its wall) never waits for this read nor shares the cores with it, and what it is answered
 * from is never older than the lifetime.
 */
export class EmployeeAccess {
  private readonly cache: TtlCache<number, Promise<CurrentAccess | null>>;
  /** When each employee was last read (`clock`), for two lifetimes. */
  private readonly readAt = new Map<number, number>();
  /** Raised by `forget`: a read in the background that began before it stores nothing. */
  private forgotten = 0;
  private readonly db: OrmSql;

  constructor(
    orm: Orm,
    private readonly ttlMs = ACCESS_CACHE_MS,
    /** The clock the line-up reads (the entries' lifetimes are the cache's own). */
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.cache = new TtlCache({ max: 20_000, ttlMs });
    this.db = OrmSql.of(orm.em, false);
  }

  current(employeeId: number): Promise<CurrentAccess | null> {
    const hit = this.cache.get(employeeId);
    const now = this.clock();
    if (hit) {
      const at = this.readAt.get(employeeId);
      if (at !== undefined && now - at >= this.ttlMs / 2) this.readBehind(employeeId, now);
      return hit;
    }
    const ids = this.lineUp(employeeId, now);
    const rows = this.read(ids);
    let missed: Promise<CurrentAccess | null> | undefined;
    for (const id of ids) {
      const value = rows.then((byId) => byId.get(id) ?? null);
      this.cache.set(id, value);
      this.readAt.set(id, now);
      // A failed read (PostgreSQL down) is not remembered: the next request asks again.
      value.catch(() => {
        if (this.cache.get(id) === value) this.forget(id);
      });
      if (id === employeeId) missed = value;
    }
    return missed!;
  }

  /**
   * `employeeId` and the others read within the last two lifetimes and past half of one, run out or
   * not: entries that ran out together (read in one statement) are read again together at the first
   * miss after, so they stay lined up.
   */
  private lineUp(employeeId: number, now: number): number[] {
    const ids = [employeeId];
    for (const [id, at] of this.readAt) {
      if (now - at >= 2 * this.ttlMs) this.readAt.delete(id);
      else if (id !== employeeId && now - at >= this.ttlMs / 2 && ids.length <= REFRESH_WITH_MISS_MAX) ids.push(id);
    }
    return ids;
  }

  /**
   * Reads the line-up of `employeeId` READ_BEHIND_MS from now while its entries go on answering (on a
   * small host a second statement beside the request's own made it no faster: both wait for the same
   * cores). Each entry read is replaced once the read is back, for the rest of a lifetime counted from
   * the read's start; not one that a miss read again meanwhile, nor any after a `forget` (a change made
   * here is not overwritten by what was read before it). A failed read leaves the entries to run out.
   */
  private readBehind(employeeId: number, now: number): void {
    const ids = this.lineUp(employeeId, now);
    for (const id of ids) this.readAt.set(id, now);
    const forgotten = this.forgotten;
    setTimeout(() => {
      const start = this.clock();
      this.read(ids).then(
        (byId) => {
          if (this.forgotten !== forgotten) return;
          const left = this.ttlMs - (this.clock() - start);
          for (const id of ids) if (this.readAt.get(id) === now) this.cache.set(id, Promise.resolve(byId.get(id) ?? null), left);
        },
        () => undefined,
      );
    }, READ_BEHIND_MS).unref();
  }

  /** A change made through this process applies here at once. */
  forget(employeeId: number): void {
    this.forgotten++;
    this.cache.delete(employeeId);
    this.readAt.delete(employeeId);
  }

  private async read(employeeIds: number[]): Promise<Map<number, CurrentAccess>> {
    const rows = await employeeStanding(this.db, { employeeIds });
    return new Map(rows.map((row) => [row.id, { clientId: row.client_id, isActive: row.is_active, roles: row.roles, credentialsVersion: row.credentials_version }]));
  }
}
