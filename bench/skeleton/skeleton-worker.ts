import { Worker } from 'bullmq';
import IORedis from 'ioredis';
import { Pool } from 'pg';
import { SKELETON_COMMAND } from './skeleton-schema';

/*
 * The skeleton's worker process (docs/benchmarks.md, "The skeleton"): one BullMQ worker per partition
 * queue, concurrency 1; each job is one PostgreSQL statement (SKELETON_COMMAND) and a Redis PUBLISH of
 * the reply to the API process that waits for it.
 */

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.SKELETON_PREFIX ?? 'skeleton-bench';
const partitions = Number(process.env.SKELETON_PARTITIONS ?? 8);

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: partitions, application_name: 'skeleton:worker' });
const publisher = new IORedis(redisUrl);

interface SkeletonJob {
  id: string;
  replyTo: string;
  wall: number;
  kind: string;
  barcode: string;
}

const workers = Array.from(
  { length: partitions },
  (_, p) =>
    new Worker<SkeletonJob>(
      `skeleton-p${p}`,
      async (job) => {
        const { id, replyTo, wall, kind, barcode } = job.data;
        const { rows } = await pool.query(SKELETON_COMMAND, [wall, kind, barcode]);
        await publisher.publish(replyTo, JSON.stringify({ id, result: rows[0] ?? null }));
      },
      { connection: new IORedis(redisUrl, { maxRetriesPerRequest: null }), prefix, concurrency: 1 },
    ),
);

process.once('SIGTERM', () => {
  void Promise.all(workers.map((w) => w.close())).finally(() => {
    publisher.disconnect();
    void pool.end().finally(() => process.exit(0));
  });
});
