import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors/app-error';
import { Client, ClientSettings, Employee } from '../db/entities';
import { hashSecret } from '../auth/password';

export interface CreateClientInput {
  name: string;
  team: string;
  adminEmail: string;
  adminPassword: string;
  adminFirstName?: string;
  adminLastName?: string;
  /** bcrypt cost; tests lower it. */
  hashRounds?: number;
}

export interface CreateClientResult {
  clientId: number;
  team: string;
  adminEmail: string;
  adminId: number;
}

/** Creates a tenant, its settings (sorting subscription enabled: enabling is free) and its first Admin. */
export async function createClient(em: EntityManager, input: CreateClientInput): Promise<CreateClientResult> {
  const email = input.adminEmail.trim().toLowerCase();
  const team = input.team.trim();
  const passwordHash = await hashSecret(input.adminPassword, input.hashRounds);
  return em.transactional(async (tx) => {
    if (await tx.count(Client, { team: { $ilike: team.replace(/[\\%_]/g, '\\$&') } })) {
      throw new AppError('validation-failed', `A client with team '${team}' exists already.`, {
        errors: [{ path: 'team', message: 'taken' }],
      });
    }
    if (await tx.count(Employee, { email })) {
      throw new AppError('email-taken', `An employee with e-mail '${email}' exists already.`);
    }
    const client = tx.create(Client, { name: input.name.trim(), team, createdAt: new Date() });
    await tx.flush();
    tx.create(ClientSettings, { clientId: client.id, sortingEnabled: true, pinLength: 0, pinEnforcement: 'client', updatedAt: new Date() });
    const admin = tx.create(Employee, {
      clientId: client.id,
      email,
      firstName: input.adminFirstName ?? 'Admin',
      lastName: input.adminLastName ?? team,
      roles: ['Admin'],
      passwordHash,
      isActive: true,
      createdAt: new Date(),
    });
    await tx.flush();
    return { clientId: client.id, team, adminEmail: email, adminId: admin.id };
  });
}
