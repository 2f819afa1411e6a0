// At a terminal, the supervisor, the tokenizer and the api all write readable lines, levels coloured (the supervisor
// tells its children the format it chose for the terminal they share); with no terminal, JSON, as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSupervisor, type Supervised } from '../fixtures/processes.js';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.js';

let dataDir: string;
let db: TestDatabase;
let running: Supervised | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'srl-'));
  db = await createTestDatabase();
});
afterAll(async () => {
  await running?.stop();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = () => ({ STRONGROOM_DATA_DIR: dataDir, DATABASE_URL: db.url, STRONGROOM_LOG_FORMAT: undefined, NO_COLOR: undefined });
/** `20:58:01 INFO  <component>  <message>`, the level in green. */
const readable = (component: string, msg: string) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d \\x1b\\[32mINFO \\x1b\\[0m ${component} +${msg}`, 'm');

describe('logs at a terminal', () => {
  it('are readable lines from all three processes, and JSON without a terminal', async () => {
    running = await startSupervisor(env(), { terminal: true });
    await running.waitFor(readable('api', 'api listening port=\\d+'));
    await running.waitReady();
    const out = running.output();
    expect(out).toMatch(readable('supervisor', 'tokenizer started pid=\\d+'));
    expect(out).toMatch(readable('tokenizer', 'tokenizer listening socket='));
    expect(out).not.toMatch(/^\{"level"/m);
    expect(await running.stop()).toBe(0);

    running = await startSupervisor(env());
    await running.waitFor(/^\{"level":"info","time":\d+,"component":"api".*"msg":"api listening"\}$/m);
    const json = running.output();
    expect(json).toMatch(/^\{"level":"info","time":\d+,"component":"supervisor","msg":"tokenizer started","pid":\d+\}$/m);
    expect(json).toMatch(/^\{"level":"info","time":\d+,"component":"tokenizer".*"msg":"tokenizer listening"\}$/m);
    // oxlint-disable-next-line no-control-regex -- a colour code is an escape sequence
    expect(json).not.toMatch(/\x1b\[/);
    expect(await running.stop()).toBe(0);
    running = undefined;
  });
});
