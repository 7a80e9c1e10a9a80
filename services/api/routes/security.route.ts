import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { PIN_FAILURE_LIMIT, PIN_FAILURE_WINDOW_MS } from '../use-cases/security/pin-attempts';
import { pinLength, validatePin } from '../use-cases/security/validate-pin.use-case';

const tags = ['Security'];

export const securityRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/security/pin/length',
    operationId: 'GetPinLength',
    summary: "The length of your company's PIN; 0 means no PIN is configured or required",
    description: 'Sorter apps ask for the PIN before a cancel or a keyed-in product when this is not 0, and check it with POST /security/pin/validate.',
    tags,
    access: 'authenticated',
    response: z.number().int(),
    handler: ({ em, auth }) => pinLength(em, auth.clientId),
  }),
  defineRoute({
    method: 'post',
    path: '/security/pin/validate',
    leavesWallViews: true,
    operationId: 'ValidatePin',
    summary: "Check a PIN against your company's PIN",
    description:
      `After ${PIN_FAILURE_LIMIT} wrong PINs within ${PIN_FAILURE_WINDOW_MS / 60_000} minutes the employee is refused with 429 ` +
      '(with Retry-After) until the window has passed, even for the right PIN. With no PIN configured every PIN is valid.',
    tags,
    access: 'authenticated',
    query: z.object({ pin: z.string().min(1).max(64).describe('The PIN as entered') }),
    response: z.object({ valid: z.boolean() }),
    errors: ['rate-limited'],
    handler: ({ em, auth, query, deps }) => validatePin(em, deps, auth, query.pin),
  }),
];
