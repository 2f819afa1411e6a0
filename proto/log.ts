// One shape for every log line of every process (api, tokenizer, operator, and the supervisor's own): a JSON object
// with `level` as a word (`info`, `warn`, `error`…), `time` in milliseconds since the epoch, and `component`.
import type { LoggerOptions } from 'pino';

export function logOptions(component: string, level: string): LoggerOptions {
  return { level, base: { component }, formatters: { level: (label) => ({ level: label }) } };
}
