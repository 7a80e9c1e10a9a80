import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { idParam } from '../http/validation';
import { employeeWithRolesDto } from '../use-cases/employees/employee.dto';
import { getEmployee, getEmployeeByEmail } from '../use-cases/employees/get-employee.use-case';

const tags = ['Employees'];

// Order matters: Express matches in registration order, so /employees/me must come before /employees/{id}.
export const employeesRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/employees/me',
    operationId: 'GetAuthenticatedEmployee',
    summary: 'The signed-in employee',
    description: 'The employee the bearer token names, with its roles.',
    tags,
    access: 'authenticated',
    response: employeeWithRolesDto,
    errors: ['not-found'],
    handler: ({ em, auth }) => getEmployee(em, auth.clientId, auth.employeeId),
  }),
  defineRoute({
    method: 'get',
    path: '/employees/by-email/{email}',
    operationId: 'GetEmployeeByEmail',
    summary: 'An employee of your company by e-mail address (any letter case)',
    description: "Another company's employee answers 404 like an unknown address.",
    tags,
    access: 'authenticated',
    params: z.object({ email: z.string().trim().min(1).max(320).describe('E-mail address, URL-encoded') }),
    response: employeeWithRolesDto,
    errors: ['not-found'],
    handler: ({ em, auth, params }) => getEmployeeByEmail(em, auth.clientId, params.email),
  }),
  defineRoute({
    method: 'get',
    path: '/employees/{id}',
    operationId: 'GetEmployee',
    summary: 'An employee of your company by id',
    description: "Another company's employee answers 404 like an unknown id.",
    tags,
    access: 'authenticated',
    params: z.object({ id: idParam.describe('Employee id') }),
    response: employeeWithRolesDto,
    errors: ['not-found'],
    handler: ({ em, auth, params }) => getEmployee(em, auth.clientId, params.id),
  }),
];
