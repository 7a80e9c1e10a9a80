import { readyzAnswer } from '../../services/api/http/health-server';

/*
 * `/readyz`'s 503 names each failed check in a clause of its own (services/api/http/health-server.ts):
 * what an operator reads in the answer and in the API's log line of the refusal.
 */
describe("readyz's answer", () => {
  it('is ready with every check passed', () => {
    expect(readyzAnswer({ postgres: true, redis: true })).toEqual({ ok: true, body: { status: 'ready', checks: { postgres: true, redis: true } } });
  });

  it('says which checks failed, one clause each, with the checks beside them', () => {
    const answer = readyzAnswer({ postgres: false, redis: true, partitions: false });
    if (answer.ok) throw new Error('expected a refusal');
    expect(answer.error.status).toBe(503);
    expect(answer.error.message).toBe('Not ready: PostgreSQL does not answer; not every command partition is held by a sorting worker yet.');
    expect(answer.error.extensions).toEqual({ checks: { postgres: false, redis: true, partitions: false } });
  });

  it('names a check it has no sentence for', () => {
    const answer = readyzAnswer({ mqtt: false });
    if (answer.ok) throw new Error('expected a refusal');
    expect(answer.error.message).toBe('Not ready: mqtt does not answer.');
  });
});
