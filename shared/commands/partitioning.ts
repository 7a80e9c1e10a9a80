import { partitionQueueName } from '../queue/jobs';

/**
 * Walls map to a fixed number of partition queues. One process at a time holds a partition and takes
 * its jobs in queue order, and each wall's actor decides them one at a time, so the commands of one
 * wall are decided strictly in arrival order (docs/architecture.md
 * "The wall actor") while different walls proceed in parallel. The hash spreads consecutive wall ids over partitions.
 */
export function partitionOf(wallId: number, partitions: number): number {
  // FNV-1a over the 4 bytes of the id: cheap, stable across processes and versions.
  let h = 0x811c9dc5;
  for (let i = 0; i < 4; i++) {
    h ^= (wallId >>> (i * 8)) & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
}

/** The queue of a partition's commands (shared/queue): every key of one partition (its queue, its lease) lands on one cluster slot. */
export function commandQueueName(partition: number): string {
  return partitionQueueName(partition);
}
