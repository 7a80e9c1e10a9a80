import express from 'express';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';

/*
 * The skeleton's API process (docs/benchmarks.md, "The skeleton"): Express, a BullMQ queue per
 * partition (a wall's partition is its id modulo SKELETON_PARTITIONS), the answer awaited on this
 * process's Redis reply channel. Nothing else: no token, no admission, no validation beyond the wall id.
 */

const port = Number(process.env.SKELETON_PORT);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = process.env.SKELETON_PREFIX ?? 'skeleton-bench';
const partitions = Number(process.env.SKELETON_PARTITIONS ?? 8);

const producer = new IORedis(redisUrl, { maxRetriesPerRequest: null });
const subscriber = new IORedis(redisUrl);
const queues = Array.from({ length: partitions }, (_, p) => new Queue(`skeleton-p${p}`, { connection: producer, prefix }));
const replyTo = `${prefix}:replies:${process.pid}`;
const waiting = new Map<string, (reply: { result: unknown }) => void>();
let sequence = 0;

subscriber.on('message', (_channel: string, message: string) => {
  const reply = JSON.parse(message) as { id: string; result: unknown };
  waiting.get(reply.id)?.(reply);
  waiting.delete(reply.id);
});

async function command(res: express.Response, wall: number, kind: 'scan' | 'confirm', barcode: string): Promise<void> {
  if (!Number.isInteger(wall) || wall < 1) {
    res.status(400).json({ code: 'bad-wall' });
    return;
  }
  const id = `${process.pid}-${++sequence}`;
  const reply = new Promise<{ result: unknown } | null>((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      resolve(null);
    }, 10_000);
    waiting.set(id, (r) => {
      clearTimeout(timer);
      resolve(r);
    });
  });
  await queues[wall % partitions]!.add(kind, { id, replyTo, wall, kind, barcode }, { removeOnComplete: true, removeOnFail: true });
  const answer = await reply;
  if (!answer) res.status(504).json({ code: 'timeout' });
  else res.json(answer.result);
}

const app = express();
app.use(express.json());
app.post('/walls/:wall/items', (req, res) => command(res, Number(req.params.wall), 'scan', String(req.body?.barcode ?? '')));
app.post('/walls/:wall/items/:item/confirm', (req, res) => command(res, Number(req.params.wall), 'confirm', String(req.params.item)));
app.get('/readyz', async (_req, res) => {
  const counts = await Promise.all(queues.map((q) => q.getWorkersCount()));
  res.status(Math.min(...counts) > 0 ? 200 : 503).json({ workers: counts });
});

void subscriber.subscribe(replyTo).then(() => {
  const server = app.listen(port, '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close();
    void Promise.all(queues.map((q) => q.close())).finally(() => {
      producer.disconnect();
      subscriber.disconnect();
      process.exit(0);
    });
  });
});
