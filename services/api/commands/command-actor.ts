import type { AuthClaims } from '../../../shared/auth/jwt';

/** Who sends a workflow command and to which wall: the part every command payload shares. */
export function commandActor(auth: AuthClaims, wallId: number) {
  return { clientId: auth.clientId, wallId, userId: auth.employeeId, roles: auth.roles };
}
