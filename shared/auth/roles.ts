import type { Role } from '../db/entities/employee.entity';

// The one place the role hierarchy is decided: routes (access lists), the API's own checks and the
// sorting worker's commands all ask here.

/** Whether someone holding `held` has any of `required`: Admin implies Manager, Manager implies Sorter. */
export function hasAnyRole(held: readonly Role[], required: readonly Role[]): boolean {
  const implied = new Set<Role>(held);
  if (implied.has('Admin')) implied.add('Manager');
  if (implied.has('Manager')) implied.add('Sorter');
  return required.some((r) => implied.has(r));
}

/** A Manager or an Admin. */
export function isManager(roles: readonly Role[]): boolean {
  return hasAnyRole(roles, ['Manager']);
}

/** The owner of a scan or a session, or a Manager, may change it. */
export function isOwnerOrManager(ownerId: number, actor: { userId: number; roles: readonly Role[] }): boolean {
  return ownerId === actor.userId || isManager(actor.roles);
}
