import type { EntityManager } from '@mikro-orm/postgresql';
import { Employee } from '../../../../shared/db/entities';
import { AppError, notFound } from '../../../../shared/errors/app-error';
import { toEmployeeWithRoles, type EmployeeWithRoles } from './employee.dto';

/** GetEmployee / GetAuthenticatedEmployee: an employee of the caller's client, else 404. */
export async function getEmployee(em: EntityManager, clientId: number, id: number): Promise<EmployeeWithRoles> {
  const employee = await em.findOne(Employee, { clientId, id });
  if (!employee) throw notFound(`Employee ${id}`);
  return toEmployeeWithRoles(employee);
}

/** GetEmployeeByEmail: addresses are stored lower-cased, so any spelling finds the employee. */
export async function getEmployeeByEmail(em: EntityManager, clientId: number, email: string): Promise<EmployeeWithRoles> {
  const normalized = email.trim().toLowerCase();
  const employee = await em.findOne(Employee, { clientId, email: normalized });
  if (!employee) throw new AppError('not-found', `No employee has the e-mail address '${normalized}'.`);
  return toEmployeeWithRoles(employee);
}

/** ListEmployees: the caller's client's employees, active and not, oldest first (by id). */
export async function listEmployees(em: EntityManager, clientId: number): Promise<EmployeeWithRoles[]> {
  const employees = await em.find(Employee, { clientId }, { orderBy: { id: 'asc' } });
  return employees.map(toEmployeeWithRoles);
}
