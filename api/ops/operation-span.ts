// An operation's span (when its request is traced): its name, the tenant's id, and how it ended, as a child of the
// HTTP request's span. A client's error (4xx) is an outcome, not a failure of the vault.
import { trace, SpanStatusCode } from '@opentelemetry/api';
import { recording, SCOPE } from '../../proto/tracing.js';
import { VaultError } from '../errors.js';

export function inOperationSpan<T>(operation: string, tenantId: number, work: () => Promise<T>): Promise<T> {
  if (!recording()) return work();
  const attributes = { 'strongroom.operation': operation, 'strongroom.tenant_id': tenantId };
  return trace.getTracer(SCOPE).startActiveSpan(`op ${operation}`, { attributes }, async (span) => {
    try {
      const result = await work();
      span.setAttributes({ 'strongroom.outcome': 'ok', 'strongroom.status_code': 200 });
      return result;
    } catch (err) {
      const status = err instanceof VaultError ? err.status : 500;
      span.setAttributes({ 'strongroom.outcome': status < 500 ? 'client_error' : 'server_error', 'strongroom.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', err instanceof Error ? err.constructor.name : 'unknown');
      throw err;
    } finally {
      span.end();
    }
  });
}
