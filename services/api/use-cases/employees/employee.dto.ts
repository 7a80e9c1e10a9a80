import { z } from 'zod';
import { ROLES, type IEmployee } from '../../../../shared/db/entities/employee.entity';

/** EmployeeWithRoles (docs/api.md §2): never the password hash. */
export const employeeWithRolesDto = z.object({
  id: z.number().int(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  roles: z.array(z.enum(ROLES)),
  isActive: z.boolean(),
});
export type EmployeeWithRoles = z.infer<typeof employeeWithRolesDto>;

export function toEmployeeWithRoles(e: Pick<IEmployee, 'id' | 'email' | 'firstName' | 'lastName' | 'roles' | 'isActive'>): EmployeeWithRoles {
  return { id: e.id, email: e.email, firstName: e.firstName, lastName: e.lastName, roles: [...e.roles], isActive: e.isActive };
}
