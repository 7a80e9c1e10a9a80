import type { Role } from '../db/entities/employee.entity';

// The one place the role hierarchy is decided: routes (access lists), the API's own checks and the
// sorting worker's commands all ask here.

/** The roles from the least up: each implies every one before it (Admin implies Manager, Manager implies Sorter). */
export const ROLES_BY_RANK: readonly Role[] = ['Sorter', 'Manager', 'Admin'];

const rank = (r: Role) => ROLES_BY_RANK.indexOf(r);

/** Whether someone holding `held` has any of `required`: a role, or one above it. */
export function hasAnyRole(held: readonly Role[], required: readonly Role[]): boolean {
  const top = Math.max(-1, ...held.map(rank));
  return required.some((r) => rank(r) >= 0 && rank(r) <= top);
}

/** The roles that let someone in where `role` does: it and every one above it. */
export function rolesFrom(role: Role): readonly Role[] {
  return ROLES_BY_RANK.slice(rank(role));
}

/** The least of `roles`: who holds it or one above it is let in by `roles` (roles nest). */
export function leastOf(roles: readonly Role[]): Role | undefined {
  return ROLES_BY_RANK.find((r) => roles.includes(r));
}

/** A Manager or an Admin. */
export function isManager(roles: readonly Role[]): boolean {
  return hasAnyRole(roles, ['Manager']);
}

/** The owner of a scan or a session, or a Manager, may change it. */
export function isOwnerOrManager(ownerId: number, actor: { userId: number; roles: readonly Role[] }): boolean {
  return ownerId === actor.userId || isManager(actor.roles);
}
