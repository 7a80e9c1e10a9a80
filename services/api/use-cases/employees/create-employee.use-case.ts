import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashSecret } from '../../../../shared/auth/password';
import { Employee, type Role } from '../../../../shared/db/entities';
import { AppError } from '../../../../shared/errors/app-error';
import { toEmployeeWithRoles, type EmployeeWithRoles } from './employee.dto';

export interface CreateEmployeeInput {
  email: string;
  firstName: string;
  lastName: string;
  password: string;
  roles: Role[];
}

const emailTaken = (email: string) =>
  new AppError('email-taken', `An employee with the e-mail address '${email}' exists already; an address signs in to one account only.`);

/**
 * POST /admin/employees. E-mail addresses are the sign-in name, so they are unique across every
 * client (stored lower-cased); the answer does not say which client holds a taken address.
 */
export async function createEmployee(em: EntityManager, clientId: number, input: CreateEmployeeInput, hashRounds: number): Promise<EmployeeWithRoles> {
  const email = input.email.trim().toLowerCase();
  if (await em.count(Employee, { email })) throw emailTaken(email);
  const passwordHash = await hashSecret(input.password, hashRounds);
  try {
    return await em.transactional(async (tx) => {
      const employee = tx.create(Employee, {
        clientId,
        email,
        firstName: input.firstName,
        lastName: input.lastName,
        roles: [...new Set(input.roles)],
        passwordHash,
        isActive: true,
        createdAt: new Date(),
      });
      await tx.flush();
      return toEmployeeWithRoles(employee);
    });
  } catch (err) {
    // Two requests for one address at once: the unique index decides.
    if (err instanceof UniqueConstraintViolationException) throw emailTaken(email);
    throw err;
  }
}
