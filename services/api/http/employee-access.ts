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

/** How long one API process trusts what it read; a change made through another process applies within this. */
export const ACCESS_CACHE_MS = 2_000;

/**
 * The employee's current standing for every authenticated request (docs/api.md §2, "Token lifetime"): deactivation, role and password changes reach existing tokens within ACCESS_CACHE_MS
 * (at most 5 s). One indexed read per employee per interval, shared by concurrent requests.
 */
export class EmployeeAccess {
  private readonly cache: TtlCache<number, Promise<CurrentAccess | null>>;
  private readonly db: OrmSql;

  constructor(orm: Orm, ttlMs = ACCESS_CACHE_MS) {
    this.cache = new TtlCache({ max: 20_000, ttlMs });
    this.db = OrmSql.of(orm.em, false);
  }

  current(employeeId: number): Promise<CurrentAccess | null> {
    const hit = this.cache.get(employeeId);
    if (hit) return hit;
    const value = this.read(employeeId);
    this.cache.set(employeeId, value);
    // A failed read (PostgreSQL down) is not remembered: the next request asks again.
    value.catch(() => {
      if (this.cache.get(employeeId) === value) this.cache.delete(employeeId);
    });
    return value;
  }

  /** A change made through this process applies here at once. */
  forget(employeeId: number): void {
    this.cache.delete(employeeId);
  }

  private async read(employeeId: number): Promise<CurrentAccess | null> {
    const [row] = await employeeStanding(this.db, { employeeId });
    return row ? { clientId: row.client_id, isActive: row.is_active, roles: row.roles, credentialsVersion: row.credentials_version } : null;
  }
}
