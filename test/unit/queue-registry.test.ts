import { queueNames } from '../../shared/queue/queue-registry';

describe('queue registry', () => {
  it('lists one command queue per partition, each a Redis Cluster hash tag (the event pipeline keeps its work in PostgreSQL)', () => {
    expect(queueNames(3)).toEqual(['{wall-commands-0}', '{wall-commands-1}', '{wall-commands-2}']);
    for (const name of queueNames(8)) expect(name).toMatch(/^\{[a-z0-9-]+\}$/);
  });
});
