import { z } from 'zod';
import { PIN_ENFORCEMENTS } from '../../../shared/db/entities/client-settings.entity';
import { defineRoute, type RouteDef } from '../http/route';
import { monthParam } from '../http/validation';
import { setPin } from '../use-cases/settings/set-pin.use-case';
import { setSortingEnabled } from '../use-cases/settings/sorting-subscription.use-case';
import { currentMonth, sortingUsage } from '../use-cases/settings/sorting-usage.use-case';
import { pinConfiguration } from '../use-cases/security/validate-pin.use-case';

const pinAnswer = z.object({ pinLength: z.number().int().describe('0 when no PIN is set'), enforcement: z.enum(PIN_ENFORCEMENTS) });

export const adminSettingsRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/admin/security/pin',
    operationId: 'GetSecurityPin',
    summary: "Whether your company has a PIN, its length, and where it is enforced",
    description: "The PIN itself is never answered (only its hash is stored). enforcement is 'client' until set otherwise.",
    tags: ['Admin: settings'],
    access: ['Admin'],
    response: pinAnswer,
    handler: ({ em, auth }) => pinConfiguration(em, auth.clientId),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/security/pin',
    operationId: 'SetSecurityPin',
    summary: "Set or remove the company's PIN and choose where it is enforced",
    description:
      "The PIN protects cancelling a scan and keying in a product. 'client': the sorter app asks for it (GET /security/pin/length, " +
      "POST /security/pin/validate); 'server': the service also refuses a cancel without the right PIN in the X-Pin header. " +
      'Only a hash is stored. The PIN is case-sensitive.',
    tags: ['Admin: settings'],
    access: ['Admin'],
    body: z.object({
      pin: z
        .string()
        .regex(/^[A-Za-z0-9]{4,12}$/, 'must be 4 to 12 letters or digits')
        .nullable()
        .describe('4..12 letters or digits; null removes the PIN'),
      enforcement: z
        .enum(PIN_ENFORCEMENTS)
        .describe("client: the sorter app asks for the PIN; server: the service also requires it in X-Pin for cancels and keyed-in products"),
    }),
    response: pinAnswer,
    handler: ({ em, auth, body, deps }) => setPin(em, auth.clientId, body, deps.config.PASSWORD_HASH_ROUNDS),
  }),
  defineRoute({
    method: 'put',
    path: '/admin/subscriptions/sorting',
    operationId: 'SetSortingSubscription',
    summary: 'Enable (free) or disable the sorting subscription',
    action: 'enable or disable the sorting subscription',
    description: 'While disabled, sorting operations answer 403 subscription-disabled.',
    tags: ['Admin: settings'],
    access: ['Admin'],
    body: z.object({ enabled: z.boolean().describe('true enables sorting (free of charge); false refuses sorting operations') }),
    response: z.object({ enabled: z.boolean() }),
    handler: ({ em, auth, body }) => setSortingEnabled(em, auth.clientId, body.enabled),
  }),
  defineRoute({
    method: 'get',
    path: '/admin/subscriptions/sorting/usage',
    operationId: 'GetSortingUsage',
    summary: 'Slots used in a month: the billing figure',
    action: 'read the sorting usage (slots used in a month)',
    description: 'Distinct slots that received at least one confirmed unit in the calendar month (UTC).',
    tags: ['Admin: settings'],
    access: ['Admin'],
    query: z.object({
      month: monthParam
        .optional()
        .describe('YYYY-MM (UTC); default the current month'),
    }),
    response: z.object({ month: z.string(), slotsUsed: z.number().int() }),
    handler: ({ em, auth, query }) => sortingUsage(em, auth.clientId, query.month ?? currentMonth()),
  }),
];
