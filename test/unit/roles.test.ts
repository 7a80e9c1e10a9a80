import { hasAnyRole, leastOf, rolesFrom } from '../../shared/auth/roles';
import type { Role } from '../../shared/db/entities/employee.entity';

describe('roles nest: Admin implies Manager, Manager implies Sorter', () => {
  const cases: [held: Role[], required: Role[], expected: boolean][] = [
    [['Admin'], ['Sorter'], true],
    [['Admin'], ['Manager'], true],
    [['Manager'], ['Sorter'], true],
    [['Manager'], ['Admin'], false],
    [['Sorter'], ['Manager'], false],
    [['Sorter'], ['Manager', 'Sorter'], true],
    [[], ['Sorter'], false],
    [['Sorter', 'Admin'], ['Manager'], true],
  ];
  test.each(cases)('%j has any of %j: %s', (held, required, expected) => {
    expect(hasAnyRole(held, required)).toBe(expected);
  });

  test('a role not in the hierarchy implies none', () => {
    expect(hasAnyRole(['Owner' as Role], ['Sorter'])).toBe(false);
  });

  test('the least role of an access list, and who it lets in', () => {
    expect(leastOf(['Admin', 'Manager'])).toBe('Manager');
    expect(rolesFrom('Manager')).toEqual(['Manager', 'Admin']);
    expect(rolesFrom('Sorter')).toEqual(['Sorter', 'Manager', 'Admin']);
  });
});
