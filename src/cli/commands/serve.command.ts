import { Command } from 'commander';
import type { RunningServer } from '../../server.js';
import { addStoreOptions, configFrom } from '../cli-support.js';
import { onShutdownSignals } from '../graceful-shutdown.js';

/** `searchplane serve`: runs the HTTP service until SIGINT/SIGTERM. */
export function serveCommand(): Command {
  return addStoreOptions(new Command('serve'))
    .description('start the HTTP service (management API, data plane, /docs)')
    .option('--host <host>', 'address to listen on (env HOST; default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 for any free port (env PORT; default 8080)')
    .option('--plans-file <file>', 'JSON file overriding plan quotas (env SEARCHPLANE_PLANS_FILE)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (env LOG_LEVEL; default info)')
    .action(async (flags) => {
      const config = configFrom(flags);
      let server: RunningServer | undefined;
      // Loaded here, not at the top: the network commands need none of the server's modules.
      const { startServer } = await import('../../server.js');
      const starting = startServer(config);
      // Handlers go in before the start finishes: a signal that arrives while starting, or just
      // after the URL is printed, must still end in a clean shutdown rather than a default kill.
      onShutdownSignals(async () => (await starting).close(), {
        log: (message, signal) => {
          if (server) server.app.log.info({ signal }, message);
          else process.stderr.write(`searchplane: ${message} (${signal})\n`);
        },
        exit: (code) => process.exit(code),
      });
      server = await starting;
    });
}
