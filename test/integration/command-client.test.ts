import { loadConfig } from '../../shared/config/config';
import { createLogger } from '../../shared/logging/logger';
import { createCommandClient } from '../../shared/commands/command-client';
import { Admission } from '../../shared/commands/admission';
import { AppError } from '../../shared/errors/app-error';

// The client against real Redis with no worker running: what a caller sees when nobody takes its command.
describe('command client without workers', () => {
  const config = loadConfig();
  const log = createLogger('silent', 'test');
  const settings = { redisUrl: config.REDIS_URL, prefix: `${config.QUEUE_PREFIX}-client`, partitions: 2, commandTimeoutMs: 300 };
  const admission = new Admission({ maxWaitMs: 1000, maxInFlight: 1, minInFlight: 1, initialRatePerSecond: 0 });
  const client = createCommandClient(settings, log, admission);
  afterAll(() => client.close());

  const expire = () => client.execute('session.expire', { clientId: 1, wallId: 1, sessionId: 1 });

  it('withdraws a command no worker took and says nothing changed (503), and refuses beyond the in-flight bound', async () => {
    const first = expire().catch((e: unknown) => e);
    const second = await expire().catch((e: unknown) => e);
    expect(second).toBeInstanceOf(AppError);
    expect(second).toMatchObject({ code: 'service-unavailable', status: 503 });
    expect((second as AppError).message).toMatch(/at capacity/);
    const outcome = await first;
    expect(outcome).toMatchObject({ code: 'service-unavailable' });
    expect((outcome as AppError).message).toMatch(/withdrawn and nothing was changed/);
  });
});
