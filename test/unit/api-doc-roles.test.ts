import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteDef } from '../../services/api/http/route';
import { apiRoutes } from '../../services/api/routes';

// docs/api.md §2 names, per role, what it may do; the route table decides. A phrase of the table must
// sit in the row of the least role the routes it stands for require (roles nest: Sorter < Manager < Admin).
const ROLES = ['Sorter', 'Manager', 'Admin'] as const;

function roleTable(): Map<string, string> {
  const doc = readFileSync(path.join(__dirname, '../../docs/api.md'), 'utf8');
  const rows = new Map<string, string>();
  for (const m of doc.matchAll(/^\s*\| (Sorter|Manager|Admin|any signed-in employee) \| (.+) \|\s*$/gm)) rows.set(m[1]!, m[2]!);
  return rows;
}

function leastRole(route: RouteDef): string {
  if (route.access === 'authenticated') return 'any signed-in employee';
  if (route.access === 'public') return 'public';
  return ROLES.find((r) => (route.access as readonly string[]).includes(r))!;
}

describe('docs/api.md role table', () => {
  const rows = roleTable();

  it.each([
    ['print license plates', '/license-plates'],
    ['record and delete transparency codes', '/marketplace-transparency-code'],
    ['read audit logs', '/audit-logs'],
    ['insights', '/insights'],
    ['webhooks', '/admin/webhooks'],
  ])('"%s" is in the row of the least role the routes under %s require', (phrase, prefix) => {
    const routes = apiRoutes.filter((r) => r.path.startsWith(prefix));
    expect(routes.length).toBeGreaterThan(0);
    const roles = new Set(routes.map(leastRole));
    expect(roles.size).toBe(1);
    const [role] = roles;
    expect(rows.get(role!)).toContain(phrase);
    for (const [other, text] of rows) if (other !== role) expect(text).not.toContain(phrase);
  });

  it('has a row for each role', () => {
    expect([...rows.keys()].sort()).toEqual(['Admin', 'Manager', 'Sorter', 'any signed-in employee']);
  });
});
