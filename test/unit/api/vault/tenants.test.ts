// Which tenant a Host header names by its subdomain.
import { describe, expect, it } from 'vitest';
import { subdomainOf } from '../../../../api/vault/tenants.js';

describe('subdomainOf', () => {
  it.each([
    ['acme.vault.example.com', 'acme'],
    ['acme.localhost:3000', 'acme'],
    ['localhost:3000', undefined],
    ['127.0.0.1:3000', undefined],
    ['[::1]:3000', undefined],
    [undefined, undefined],
  ])('%s gives %s', (host, sub) => {
    expect(subdomainOf(host)).toBe(sub);
  });
});
