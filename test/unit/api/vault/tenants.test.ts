// Which tenant a Host header names: only `<name>.<STRONGROOM_TENANT_DOMAIN>`, never anything else.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { tenantInHost } from '../../../../api/vault/tenants.js';

describe('tenantInHost', () => {
  it.each([
    ['acme.vault.example.com', 'vault.example.com', 'acme'],
    ['ACME.Vault.Example.com:8443', 'vault.example.com', 'acme'],
    ['acme.vault.example.com.', 'vault.example.com', 'acme'],
    ['vault.example.com', 'vault.example.com', undefined],
    ['x.acme.vault.example.com', 'vault.example.com', undefined],
    ['acme.evil-vault.example.com', 'vault.example.com', undefined],
    ['acme.vault.example.com.evil.org', 'vault.example.com', undefined],
    ['acme-x.vault.example.com', 'vault.example.com', undefined],
    ['acme.localhost:3000', undefined, undefined],
    ['acme.vault.example.com', undefined, undefined],
    ['127.0.0.1:3000', 'vault.example.com', undefined],
    [undefined, 'vault.example.com', undefined],
  ])('%s under %s gives %s', (host, domain, name) => {
    expect(tenantInHost(host, domain)).toBe(name);
  });

  it('never answers a name for a host outside the domain, whatever the host', () => {
    fc.assert(
      fc.property(fc.domain(), fc.string({ maxLength: 20 }), (host, prefix) => {
        const name = tenantInHost(`${prefix}${host}`, 'vault.example.com');
        if (name !== undefined) expect(`${prefix}${host}`.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '')).toBe(`${name}.vault.example.com`);
      }),
    );
  });
});
