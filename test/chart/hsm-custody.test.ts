// The chart's pkcs11 custody, rendered: the vendor's library, its configuration and the PIN (a file from a Secret)
// reach the tokenizer container only; no wrapping key is made or mounted; the schema refuses incomplete settings.
import { describe, expect, it } from 'vitest';
import { renderer, validate, values } from './release.js';

interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

const complete = {
  custody: {
    provider: 'pkcs11',
    pkcs11: {
      module: '/opt/hsm/lib/libsofthsm2.so',
      tokenLabel: 'strongroom',
      keyLabel: 'strongroom-kek',
      pinSecret: { name: 'hsm-pin', key: 'pin' },
      library: { volume: { hostPath: { path: '/usr/lib/softhsm' } }, mountPath: '/opt/hsm/lib' },
      config: { configMap: 'softhsm-config', mountPath: '/etc/hsm' },
      env: [{ name: 'SOFTHSM2_CONF', value: '/etc/hsm/softhsm2.conf' }],
    },
  },
};

function pod(v: object) {
  const spec = renderer.manifest('api-deployment.yaml', v).spec.template.spec;
  const all: Container[] = [...(spec.initContainers ?? []), ...spec.containers];
  return { api: all.find((c) => c.name === 'api')!, tokenizer: all.find((c) => c.name === 'tokenizer')!, volumes: spec.volumes as Record<string, any>[] };
}

const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
const mounts = (c: Container) => (c.volumeMounts ?? []).map((m) => m.name);

describe('chart pkcs11 custody', () => {
  it('gives the tokenizer the HSM settings, the PIN as a file from its Secret, the library and configuration read-only', () => {
    const v = values(complete);
    expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
    const { tokenizer, volumes } = pod(v);
    const env = envOf(tokenizer);
    expect(env).toMatchObject({
      STRONGROOM_TOKENIZER_CUSTODY: 'pkcs11',
      STRONGROOM_PKCS11_MODULE: '/opt/hsm/lib/libsofthsm2.so',
      STRONGROOM_PKCS11_TOKEN_LABEL: 'strongroom',
      STRONGROOM_PKCS11_KEY_LABEL: 'strongroom-kek',
      SOFTHSM2_CONF: '/etc/hsm/softhsm2.conf',
    });
    expect(env).not.toHaveProperty('STRONGROOM_PKCS11_PIN');
    expect(env).not.toHaveProperty('STRONGROOM_WRAPPING_KEY_FILE');
    const pinMount = tokenizer.volumeMounts!.find((m) => m.name === 'hsm-pin')!;
    expect(env.STRONGROOM_PKCS11_PIN_FILE).toBe(`${pinMount.mountPath}/pin`);
    expect(volumes.find((x) => x.name === 'hsm-pin')!.secret).toMatchObject({ secretName: 'hsm-pin', items: [{ key: 'pin', path: 'pin' }] });
    expect(volumes.find((x) => x.name === 'hsm-library')!.hostPath).toEqual({ path: '/usr/lib/softhsm' });
    expect(volumes.find((x) => x.name === 'hsm-config')!.configMap).toEqual({ name: 'softhsm-config' });
    for (const name of ['hsm-pin', 'hsm-library', 'hsm-config']) expect(tokenizer.volumeMounts!.find((m) => m.name === name)!.readOnly).toBe(true);
    // No wrapping key: not mounted, not made.
    expect(mounts(tokenizer)).not.toContain('wrapping-key');
    expect(volumes.map((x) => x.name)).not.toContain('wrapping-key');
    expect(renderer.manifest('secret-wrapping-key.yaml', v)).toBeUndefined();
  });

  it('keeps every HSM part out of the api container', () => {
    const { api } = pod(values(complete));
    expect(mounts(api).filter((m) => m.startsWith('hsm-'))).toEqual([]);
    expect(Object.keys(envOf(api)).filter((n) => /PKCS11|SOFTHSM|CUSTODY/.test(n))).toEqual([]);
  });

  it('leaves the static custody as it was: the wrapping key Secret mounted, no HSM part', () => {
    const v = values();
    expect(validate(v)).toBe(true);
    const { tokenizer, volumes } = pod(v);
    expect(envOf(tokenizer).STRONGROOM_WRAPPING_KEY_FILE).toBeDefined();
    expect(mounts(tokenizer)).toContain('wrapping-key');
    expect(volumes.map((x) => x.name).filter((n) => n.startsWith('hsm-'))).toEqual([]);
    expect(renderer.manifest('secret-wrapping-key.yaml', v)).toBeDefined();
  });

  it('refuses incomplete pkcs11 settings', () => {
    const without = (path: string, value: unknown) => {
      const [k, sub] = path.split('.');
      const pkcs11 = { ...complete.custody.pkcs11, [k!]: sub ? { ...(complete.custody.pkcs11 as any)[k!], [sub]: value } : value };
      return values({ custody: { provider: 'pkcs11', pkcs11 } });
    };
    for (const [path, value] of [
      ['module', ''],
      ['keyLabel', ''],
      ['tokenLabel', ''],
      ['pinSecret.name', ''],
      ['library.volume', {}],
    ] as const) {
      expect(validate(without(path, value)), `${path} empty`).toBe(false);
    }
    // A token label and a slot at once is ambiguous.
    expect(validate(without('slot', '3'))).toBe(false);
    // A slot instead of the label is complete.
    expect(validate(values({ custody: { provider: 'pkcs11', pkcs11: { ...complete.custody.pkcs11, tokenLabel: '', slot: '3' } } }))).toBe(true);
    // The vendor's variables may not set the vault's own settings.
    expect(validate(values({ custody: { ...complete.custody, pkcs11: { ...complete.custody.pkcs11, env: [{ name: 'STRONGROOM_PKCS11_PIN', value: '1234' }] } } }))).toBe(false);
    expect(validate(values({ custody: { provider: 'hsm' } }))).toBe(false);
  });
});
