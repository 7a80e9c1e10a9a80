import { query } from '../../../shared/db/named-sql';
import type { Role } from '../../../shared/db/entities/employee.entity';

/** Tokens' employees as they stand now (by primary key): one row per id that exists. */
export const employeeStanding = query<{ employeeIds: number[] }, { id: number; client_id: number; is_active: boolean; roles: Role[]; credentials_version: number }>(
  'employee-standing',
  `
select id, client_id, is_active, roles, credentials_version from employee where id = any(:employeeIds::int[])`,
);
