// Preloaded into the vault's processes by statements.ts (NODE_OPTIONS=--import): counts every SQL statement sent
// through pg and every gRPC call made, and writes the running totals to $COUNT_DIR/<pid>.json every 100 ms.
import { createRequire } from 'node:module';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const require = createRequire(join(process.cwd(), 'package.json'));
const counts = {};
const count = (key) => (counts[key] = (counts[key] ?? 0) + 1);

// The ORM brings its own copy of pg: both are counted.
const ormRequire = createRequire(join(process.cwd(), 'node_modules/@mikro-orm/postgresql/package.json'));
for (const load of [() => require('pg'), () => ormRequire('pg')]) {
  let pg;
  try {
    pg = load();
  } catch {
    continue;
  }
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    // Values written into a statement (the audit append's) are left out, so that its calls count as one statement.
    count(`sql: ${text.replace(/\s+/g, ' ').replace(/"[^"]*"\./g, '').replace(/'[^']*'/g, "'…'").replace(/\b\d+\b/g, 'N').slice(0, 90)}`);
    return query.call(this, config, ...rest);
  };
}

// Counted where they are served (the tokenizer): grpc-js's client methods are bound before any preload runs.
const grpc = require('@grpc/grpc-js');
// Called back with its own `this` below.
// oxlint-disable-next-line typescript/unbound-method
const addService = grpc.Server.prototype.addService;
grpc.Server.prototype.addService = function (service, implementation) {
  const counted = {};
  for (const [name, handler] of Object.entries(implementation)) {
    counted[name] = function (...args) {
      count(`grpc: ${name}`);
      // A stream's handler runs once per stream: its messages (each a batch, as a Run call's) are counted as they come.
      // The handler attaches its own listener in this same turn, before the stream flows.
      if (name === 'RunStream') args[0].on('data', () => count('grpc: RunStream message'));
      return handler.apply(this, args);
    };
  }
  return addService.call(this, service, counted);
};

// The supervisor gives the tokenizer only its own settings (no COUNT_DIR): the directory also rides in the
// preload's own URL (`--import …/count-statements.mjs?dir=…`).
const out = join(new URL(import.meta.url).searchParams.get('dir') ?? process.env.COUNT_DIR ?? '.', `${process.pid}.json`);
// Written aside and renamed, so a reader never sees half a file.
setInterval(() => {
  writeFileSync(`${out}.tmp`, JSON.stringify(counts));
  renameSync(`${out}.tmp`, out);
}, 100).unref();
