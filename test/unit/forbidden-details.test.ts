import type { Role } from '../../shared/db/entities/employee.entity';
import { ROUTE_GROUPS } from '../../services/api/app';
import { forbiddenDetail } from '../../services/api/http/register-routes';
import type { RouteDef } from '../../services/api/http/route';

// Every route's 403 detail is a sentence a person reads (docs/api.md §1): who may, a verb, what, and
// who you are. Checked over the whole route table, so a new route's summary cannot produce
// "Only a Manager or an Admin, or an Admin may sorting figures of a range".
const restricted = Object.values(ROUTE_GROUPS)
  .flat()
  .filter((r): r is RouteDef & { access: readonly Role[] } => Array.isArray(r.access));

// The verbs a detail may use after "may": written here on their own, not taken from the code.
const VERBS = [
  'attach', 'cancel', 'change', 'check', 'confirm', 'connect', 'create', 'delete', 'detach', 'enable', 'end', 'import', 'list', 'mark', 'move',
  'open', 'print', 'read', 'record', 'release', 'remove', 'renew', 'request', 'scan', 'set', 'start', 'stop', 'subscribe',
];
const WHO = ['a Sorter, a Manager or an Admin', 'a Manager or an Admin', 'an Admin'];
const SENTENCE = new RegExp(`^Only (${WHO.join('|')}) may (\\w+) (\\S.*); you are signed in as (.+)\\. Ask an Admin for the role if you need it\\.$`);
const LEAST = { Sorter: WHO[0], Manager: WHO[1], Admin: WHO[2] } as const;

describe('403 details of the route table', () => {
  it('covers the role-restricted routes', () => {
    expect(restricted.length).toBeGreaterThan(40);
    expect(restricted.some((r) => r.path === '/insights/stats')).toBe(true);
  });

  it.each(restricted.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('%s: one sentence, the least role, a verb', (_name, route) => {
    for (const roles of [[], ['Sorter'], ['Sorter', 'Manager']] as Role[][]) {
      const detail = forbiddenDetail(route, roles);
      const m = SENTENCE.exec(detail);
      expect(m).not.toBeNull();
      const [, who, verb, what, you] = m!;
      // Roles nest: the least role the route lets in names everyone it lets in, each role once.
      const least = (['Sorter', 'Manager', 'Admin'] as const).find((r) => route.access.includes(r))!;
      expect(who).toBe(LEAST[least]);
      for (const role of ['Sorter', 'Manager', 'Admin']) expect(who.split(role).length).toBeLessThanOrEqual(2);
      expect(VERBS).toContain(verb);
      // No second verb glued on, no capital after "may" but a proper name or an acronym.
      expect(what).not.toMatch(/^(may|the the|a a) /);
      expect(detail).not.toMatch(/may (A|The|An) /);
      expect(detail.split('Only').length).toBe(2);
      expect(you).toBe(roles.length ? roles.map((r) => (r === 'Admin' ? 'an Admin' : `a ${r}`)).join(' and ') : 'an employee without a role');
    }
  });

  it('reads right for the insights routes', () => {
    const stats = restricted.find((r) => r.path === '/insights/stats')!;
    expect(forbiddenDetail(stats, ['Sorter'])).toBe(
      'Only a Manager or an Admin may read sorting figures of a range; you are signed in as a Sorter. Ask an Admin for the role if you need it.',
    );
  });
});
