/**
 * Environment every service process starts with unless the operator set it (the supervisor's children,
 * and the image, whose Dockerfile sets the same values).
 *
 * MALLOC_MMAP_THRESHOLD_: glibc's malloc raises its mmap threshold each time a large block is freed,
 * then serves later large blocks from its heaps and keeps them: every sign-in hashes with a 16 MiB
 * scrypt buffer on a thread-pool thread, and after a burst of sign-ins the process held about 65 MB more
 * for good. A fixed threshold of 128 KiB (glibc's own starting value) returns large blocks to the system
 * when freed. docs/operations.md, "Memory".
 */
export const SERVICE_ENV_DEFAULTS: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
};

/** The defaults the given environment does not set itself. */
export function missingServiceEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(SERVICE_ENV_DEFAULTS).filter(([k]) => env[k] === undefined));
}
