// Entry point of the api process (what the supervisor and the container start): compose the api, and close it
// cleanly on SIGTERM or SIGINT.
import { startApi } from './compose.js';

startApi()
  .then(({ close }) => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      });
    }
  })
  .catch((err: unknown) => {
    process.stderr.write(`api failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
