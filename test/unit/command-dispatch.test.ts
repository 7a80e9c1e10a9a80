import { dispatchCommand, OutageGate } from '../../shared/commands/command-dispatch';
import { COMMAND_NAMES } from '../../shared/commands/commands';
import type { CommandHandlers } from '../../shared/commands/command-job';
import { createLogger } from '../../shared/logging/logger';

/*
 * The dispatch turns whatever a handler throws into an answer, with or without an outage gate (the
 * in-process client runs without one): a database that refuses connections is a 503, never an exception.
 */
describe('command dispatch', () => {
  const log = createLogger('silent', 'test');
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const handlers = Object.fromEntries(
    COMMAND_NAMES.map((n) => [
      n,
      async () => {
        throw refused;
      },
    ]),
  ) as unknown as CommandHandlers;
  const data = { commandId: 'c-1', name: 'session.expire' as const, payload: { clientId: 1, wallId: 2, sessionId: 3 } };
  const job = { commandId: 'c-1', partition: 0, jobId: 1 };

  it('answers an outage 503 without a gate', async () => {
    const outcome = await dispatchCommand(handlers, data, job, { log });
    expect(outcome).toMatchObject({ ok: false, problem: { code: 'service-unavailable' } });
  });

  it('answers an outage 503 with a gate, and the next command at once without trying', async () => {
    const gate = new OutageGate(log, 60_000);
    expect(await dispatchCommand(handlers, data, job, { log, gate })).toMatchObject({ ok: false, problem: { code: 'service-unavailable' } });
    let tried = false;
    const watching = { ...handlers, 'session.expire': async () => ((tried = true), Promise.reject(refused)) } as CommandHandlers;
    expect(await dispatchCommand(watching, data, job, { log, gate })).toMatchObject({ ok: false, problem: { code: 'service-unavailable' } });
    expect(tried).toBe(false);
  });
});
