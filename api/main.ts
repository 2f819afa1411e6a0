// Entry point of the api process (what the supervisor and the container start): compose the api, and close it
// cleanly on SIGTERM or SIGINT, or once its supervisor is gone (killed with no chance to stop it: the IPC channel
// closes), rather than live on, orphaned, holding the port.
import { startApi } from './compose.js';

startApi()
  .then(({ close }) => {
    let closing = false;
    const shut = () => {
      if (closing) return;
      closing = true;
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, shut);
    if (process.channel) process.once('disconnect', shut);
  })
  .catch((err: unknown) => {
    process.stderr.write(`api failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
