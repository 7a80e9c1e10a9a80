import { query } from '../../../shared/db/named-sql';
import type { Role } from '../../../shared/db/entities/employee.entity';

/** A token's employee as it stands now (by primary key). */
export const employeeStanding = query<{ employeeId: number }, { client_id: number; is_active: boolean; roles: Role[]; credentials_version: number }>(
  'employee-standing',
  `
select client_id, is_active, roles, credentials_version from employee where id = :employeeId::int`,
);
