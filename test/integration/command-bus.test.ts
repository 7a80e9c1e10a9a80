import { loadConfig } from '../../shared/config/config';
import { createLogger } from '../../shared/logging/logger';
import { createCommandBus } from '../../shared/queue/queue-module';
import { AppError } from '../../shared/errors/app-error';

// The bus against real Redis with no worker running: what a caller sees when nobody takes its command.
describe('command bus without workers', () => {
  const config = loadConfig();
  const log = createLogger('silent', 'test');
  const settings = {
    redisUrl: config.REDIS_URL,
    prefix: `${config.QUEUE_PREFIX}-bus`,
    partitions: 2,
    commandTimeoutMs: 300,
    maxInFlight: 1,
  };
  const bus = createCommandBus(settings, log);
  afterAll(() => bus.close());

  const expire = () => bus.execute('session.expire', { clientId: 1, wallId: 1, sessionId: 1 });

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
