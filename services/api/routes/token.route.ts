import { z } from 'zod';
import { defineRoute } from '../http/route';
import { createToken } from '../use-cases/auth/create-token.use-case';

const tokenRequest = z.object({
  username: z.string().min(1).max(320).describe("The employee's e-mail address"),
  password: z.string().min(1).max(1024).describe("The employee's password"),
});

/** The answer of every sign-in (POST /token, POST /auto-login/redeem). */
export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
});

/** POST /token: the sign-in (use-cases/auth/create-token.use-case.ts counts the failures). */
export const tokenRoute = defineRoute({
  method: 'post',
  path: '/token',
  leavesWallViews: true,
  operationId: 'CreateToken',
  summary: 'Sign in: exchange an e-mail and password for a bearer token (JWT)',
  description:
    'Outside /api/v1. The token names the employee, the company and the roles and expires after expires_in seconds; send it as ' +
    '"Authorization: Bearer <token>". The e-mail is matched in any letter case. An unknown e-mail, a wrong password or a deactivated ' +
    'account answers 401; after too many failures for one address and user name within the window, 429 with Retry-After.',
  tags: ['Authentication'],
  access: 'public',
  body: tokenRequest,
  response: tokenResponse,
  errors: ['unauthorized', 'rate-limited'],
  handler: ({ req, em, deps, body }) => createToken(em, deps, body, req.ip ?? req.socket.remoteAddress ?? 'unknown'),
});
