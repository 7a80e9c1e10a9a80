import { closeOnSignals, createRuntime } from '../../shared/runtime/runtime';
import { startApi } from './start-api';

/** `npm run start:api`: the HTTP API alone (no workers), for ops to scale. */
async function main(): Promise<void> {
  const runtime = await createRuntime('api');
  closeOnSignals(runtime);
  await startApi(runtime);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
