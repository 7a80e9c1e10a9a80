import type { EntityManager } from '@mikro-orm/postgresql';
import { hashSecret } from '../../../../shared/auth/password';
import { Employee, type Role } from '../../../../shared/db/entities';
import { emTransactionSql } from '../../../../shared/db/orm-sql';
import { AppError, notFound } from '../../../../shared/errors/app-error';
import { toEmployeeWithRoles, type EmployeeWithRoles } from './employee.dto';
import { lockActiveAdmins } from './employees.queries';

export interface UpdateEmployeeInput {
  firstName?: string;
  lastName?: string;
  password?: string;
  roles?: Role[];
  isActive?: boolean;
}

/**
 * PATCH /admin/employees/{id}: changes only the fields given. Refuses (409 last-admin) a change that
 * would leave the client without an active Admin, since nobody could then manage its employees.
 * Deactivating or changing the password raises the credentials version, which ends the tokens already
 * issued; role changes reach them too, since requests use the employee's current roles.
 */
export async function updateEmployee(
  em: EntityManager,
  clientId: number,
  id: number,
  input: UpdateEmployeeInput,
  deps: { config: { PASSWORD_HASH_ROUNDS: number }; access: { forget(employeeId: number): void } },
): Promise<EmployeeWithRoles> {
  const passwordHash = input.password !== undefined ? await hashSecret(input.password, deps.config.PASSWORD_HASH_ROUNDS) : undefined;
  const updated = await em.transactional(async (tx) => {
    const admins = await lockActiveAdmins(emTransactionSql(tx, false), { clientId });
    const employee = await tx.findOne(Employee, { clientId, id });
    if (!employee) throw notFound(`Employee ${id}`);

    const roles = input.roles ? [...new Set(input.roles)] : employee.roles;
    const isActive = input.isActive ?? employee.isActive;
    const staysAdmin = isActive && roles.includes('Admin');
    if (!staysAdmin && admins.some((a) => a.id === id) && admins.length === 1) {
      throw new AppError(
        'last-admin',
        `${employee.firstName} ${employee.lastName} is the only active Admin of your company; make another employee Admin before ${
          isActive ? 'removing this one\'s Admin role' : 'deactivating this one'
        }.`,
      );
    }
    if (input.firstName !== undefined) employee.firstName = input.firstName;
    if (input.lastName !== undefined) employee.lastName = input.lastName;
    if (input.roles) employee.roles = roles;
    if (passwordHash || (employee.isActive && input.isActive === false)) employee.credentialsVersion += 1;
    if (input.isActive !== undefined) employee.isActive = input.isActive;
    if (passwordHash) employee.passwordHash = passwordHash;
    await tx.flush();
    return toEmployeeWithRoles(employee);
  });
  // This process applies the change at once; the others within the access cache's few seconds.
  deps.access.forget(id);
  return updated;
}
