import { queueNames } from '../../shared/queue/queue-registry';

describe('queue registry', () => {
  it('lists one command queue per partition and the webhook queue, each a Redis Cluster hash tag', () => {
    expect(queueNames(3)).toEqual(['{wall-commands-0}', '{wall-commands-1}', '{wall-commands-2}', '{webhook-deliveries}', '{maintenance}', '{audit}', '{stats}', '{labels}', '{lights}']);
    for (const name of queueNames(8)) expect(name).toMatch(/^\{[a-z0-9-]+\}$/);
  });
});
