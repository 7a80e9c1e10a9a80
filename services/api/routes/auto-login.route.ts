import { z } from 'zod';
import { defineRoute, type RouteDef } from '../http/route';
import { tokenResponse } from './token.route';
import { AUTO_LOGIN_APPS, createAutoLoginLink, redeemAutoLoginToken, type AutoLoginApp } from '../use-cases/auto-login/auto-login.use-case';

const tags = ['Auto-login links'];

const OPERATIONS: Record<AutoLoginApp, { operationId: string; name: string }> = {
  'inventory-web-portal': { operationId: 'ConstructInventoryWebPortalAutoLoginLink', name: 'the inventory web portal' },
  'sorting-hub': { operationId: 'ConstructSortingHubAutoLoginLink', name: 'the sorting hub' },
  'sorting-sorter': { operationId: 'ConstructSortingSorterAutoLoginLink', name: 'the sorter app' },
  'inventory-lens': { operationId: 'ConstructInventoryLensAutoLoginLink', name: 'the inventory lens app' },
};

const linkRoutes = (Object.keys(AUTO_LOGIN_APPS) as AutoLoginApp[]).map((app) =>
  defineRoute({
    method: 'get',
    path: `/auto-login/{team}/${app}`,
    operationId: OPERATIONS[app].operationId,
    summary: `A link that signs you in to ${OPERATIONS[app].name}`,
    description:
      `A JSON string: \`${AUTO_LOGIN_APPS[app]}\` (with {team} substituted) + \`/auto-login?token=…&returnUrl=…\`. The token signs ` +
      'the caller in once, within 60 s, through POST /auto-login/redeem. url (default /) must be a path on the app beginning with ' +
      "a single '/': no scheme, host, backslash, space or control character (400). team must be your company's team, in any " +
      'letter case (404 otherwise).',
    tags,
    access: 'authenticated',
    params: z.object({ team: z.string().min(1).max(200) }),
    query: z.object({ url: z.string().max(2000).optional().describe("Where the app goes after signing in: a path such as /walls/3") }),
    response: z.string().describe('The link'),
    errors: ['validation-failed', 'not-found'],
    handler: ({ em, auth, deps, params, query }) => createAutoLoginLink(em, deps.config, auth, app, params.team, query.url),
  }),
);

export const autoLoginRoutes: RouteDef[] = [
  ...linkRoutes,
  defineRoute({
    method: 'post',
    path: '/auto-login/redeem',
    leavesWallViews: true,
    operationId: 'RedeemAutoLoginToken',
    summary: 'Sign in with the token of an auto-login link (once, within 60 s)',
    description: 'Answers like POST /token. An unknown, expired or already used token → 401; the link cannot be used twice, also not by two requests at once.',
    tags,
    access: 'public',
    body: z.object({ token: z.string().min(1).max(200) }),
    response: tokenResponse,
    errors: ['validation-failed', 'unauthorized'],
    handler: ({ em, deps, body }) => redeemAutoLoginToken(em, deps.config, body.token),
  }),
];
