import { ROLES } from '../../services/supervisor/roles';
import { WORKER_KINDS, resolveWorkerKind } from '../../workers/registry';

describe('worker kinds', () => {
  it('webhook deliveries have one name; the former one is still accepted, as deprecated', () => {
    expect(resolveWorkerKind('webhooks')).toEqual({ kind: 'webhooks', deprecated: null });
    expect(resolveWorkerKind('notifications')).toEqual({ kind: 'webhooks', deprecated: 'notifications' });
    expect(resolveWorkerKind('nope')).toBeNull();
    expect(Object.keys(WORKER_KINDS)).not.toContain('notifications');
    expect(ROLES.map((r) => r.role)).toContain('webhooks');
  });
});
