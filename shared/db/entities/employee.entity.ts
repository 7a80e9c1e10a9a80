import { defineEntity, type InferEntity } from '@mikro-orm/core';

export const ROLES = ['Admin', 'Manager', 'Sorter'] as const;
export type Role = (typeof ROLES)[number];

export const Employee = defineEntity({
  name: 'Employee',
  tableName: 'employee',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    clientId: p.integer(),
    email: p.text(),
    firstName: p.text(),
    lastName: p.text(),
    roles: p.array<Role>().columnType('text[]'),
    passwordHash: p.text().hidden(),
    isActive: p.boolean().default(true),
    /** Raised by deactivation and password changes: tokens carrying an older value are refused. */
    credentialsVersion: p.integer().default(0),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  }),
});
export type IEmployee = InferEntity<typeof Employee>;
