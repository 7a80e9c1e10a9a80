/** Worker databases are kept after a run for inspection; the next run's setup recreates them. */
export default async function globalTeardown(): Promise<void> {}
