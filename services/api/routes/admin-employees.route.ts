import { z } from 'zod';
import { ROLES } from '../../../shared/db/entities/employee.entity';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { createEmployee } from '../use-cases/employees/create-employee.use-case';
import { employeeWithRolesDto } from '../use-cases/employees/employee.dto';
import { listEmployees } from '../use-cases/employees/get-employee.use-case';
import { updateEmployee } from '../use-cases/employees/update-employee.use-case';

const tags = ['Admin: employees'];
const name = z.string().trim().min(1).max(100);
// bcrypt reads at most 72 bytes; a longer password would silently be cut.
const password = z
  .string()
  .min(8, 'must be at least 8 characters')
  .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'must be at most 72 bytes');
const roles = z
  .array(z.enum(ROLES))
  .min(1, 'give at least one role: Admin, Manager or Sorter')
  .max(ROLES.length * 2)
  .describe('Admin implies Manager, Manager implies Sorter');

export const adminEmployeesRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/admin/employees',
    operationId: 'ListEmployees',
    summary: "List your company's employees",
    description: 'Every employee of your company, active or not, with its roles; oldest first (by id). The console\'s employee list.',
    tags,
    access: ['Admin'],
    response: z.array(employeeWithRolesDto),
    handler: ({ em, auth }) => listEmployees(em, auth.clientId),
  }),
  defineRoute({
    method: 'post',
    path: '/admin/employees',
    operationId: 'CreateEmployee',
    summary: 'Create an employee of your company',
    description: 'The e-mail address is the sign-in name: stored lower-cased and unique across every company (409 email-taken).',
    tags,
    access: ['Admin'],
    body: z.object({
      email: z.string().trim().pipe(z.email().max(320)).describe('The sign-in name: stored lower-cased, unique across every company'),
      firstName: name.describe('1..100 characters, trimmed'),
      lastName: name.describe('1..100 characters, trimmed'),
      password: password.describe('8 characters to 72 bytes'),
      roles,
    }),
    response: employeeWithRolesDto,
    errors: ['email-taken'],
    handler: ({ em, deps, auth, body }) => createEmployee(em, auth.clientId, body, deps.config.PASSWORD_HASH_ROUNDS),
  }),
  defineRoute({
    method: 'patch',
    path: '/admin/employees/{id}',
    operationId: 'UpdateEmployee',
    summary: 'Change an employee: names, password, roles, active flag (only the fields given)',
    description:
      'The e-mail address cannot be changed. A change that would leave your company without an active Admin answers 409 last-admin.',
    tags,
    access: ['Admin'],
    params: z.object({ id: idParam.describe('Employee id') }),
    body: z.strictObject({
      firstName: name.optional().describe('1..100 characters, trimmed'),
      lastName: name.optional().describe('1..100 characters, trimmed'),
      password: password.optional().describe('A new password: 8 characters to 72 bytes'),
      roles: roles.optional(),
      isActive: z.boolean().optional().describe('false: the employee can no longer sign in'),
    }),
    response: employeeWithRolesDto,
    errors: ['not-found', 'last-admin'],
    handler: ({ em, deps, auth, params, body }) => updateEmployee(em, auth.clientId, params.id, body, deps),
  }),
];
