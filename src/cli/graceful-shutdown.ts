export interface ShutdownOptions {
  log(message: string, signal: NodeJS.Signals): void;
  exit(code: number): void;
  signals?: NodeJS.Signals[];
}

/**
 * On the first SIGINT/SIGTERM runs `shutdown` (stop accepting, finish in-flight requests,
 * close the store) and exits 0, or 1 if it failed. A second signal exits 1 at once, for when
 * a request or the store hangs and the operator does not want to wait.
 */
export function onShutdownSignals(shutdown: () => Promise<void>, options: ShutdownOptions): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.log('second signal: exiting without waiting', signal);
      options.exit(1);
      return;
    }
    stopping = true;
    options.log('shutting down: finishing in-flight requests', signal);
    shutdown().then(
      () => options.exit(0),
      (error: unknown) => {
        process.stderr.write(`searchplane: shutdown failed: ${(error as Error)?.message ?? error}\n`);
        options.exit(1);
      },
    );
  };
  for (const signal of options.signals ?? ['SIGINT', 'SIGTERM']) process.on(signal, handle);
}
