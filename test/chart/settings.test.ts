// The chart's settings, rendered: every setting the api and the tokenizer read is either a value of the chart or
// named here as not offered (with why); each reaches its own container only, and only when set; the checkpoint
// bucket's keys and the mail URLs come from Secret references, never from plain values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helmMerge } from './render.js';
import { defaults, repoRoot as root, renderer, schema, validate, values } from './release.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  env?: EnvVar[];
  volumeMounts?: { name: string; mountPath: string }[];
}

function pod(v: object) {
  const spec = renderer.manifest('api-deployment.yaml', v).spec.template.spec;
  const all: Container[] = [...(spec.initContainers ?? []), ...spec.containers];
  return {
    api: all.find((c) => c.name === 'api')!,
    tokenizer: all.find((c) => c.name === 'tokenizer')!,
    volumes: spec.volumes as { name: string; persistentVolumeClaim?: { claimName: string } }[],
  };
}
const env = (c: Container) => new Map((c.env ?? []).map((e) => [e.name, e]));
const read = (file: string) => [...new Set(readFileSync(join(root, file), 'utf8').match(/STRONGROOM_[A-Z0-9_]+/g))];

/** Settings the chart does not offer, and why; every other one must be a value. */
const NOT_OFFERED: Record<string, string> = {
  STRONGROOM_ROOT_TOKEN: 'the chart gives STRONGROOM_ROOT_TOKEN_FILE from a mounted Secret instead',
  STRONGROOM_WRAPPING_KEY: 'the chart gives STRONGROOM_WRAPPING_KEY_FILE from a mounted Secret instead',
  STRONGROOM_TOKENIZER_ADDRESS: 'a TCP listener without TLS or authentication; the sidecar is reached over the unix socket',
  STRONGROOM_PKCS11_PIN: 'the chart gives STRONGROOM_PKCS11_PIN_FILE from a mounted Secret instead',
  STRONGROOM_OIDC_CLIENT_SECRET: 'the chart gives STRONGROOM_OIDC_CLIENT_SECRET_FILE from a mounted Secret instead',
};

/** custody.provider pkcs11, complete, by token label (`slot` for the other form): the HSM settings' render. */
const hsm = (slot = '') => ({
  custody: {
    provider: 'pkcs11',
    pkcs11: {
      module: '/opt/hsm/libvendor.so',
      tokenLabel: slot ? '' : 'vault',
      slot,
      keyLabel: 'kek',
      pinSecret: { name: 'hsm-pin', key: 'pin' },
      library: { volume: { emptyDir: {} }, mountPath: '/opt/hsm' },
    },
  },
});

// Every settings value set to something the program accepts, to see where each lands.
const apiSettings: Record<string, string> = Object.fromEntries(
  Object.entries(schema.properties.api.properties.settings.properties as Record<string, { pattern?: string }>).map(([k, s]) => [
    k,
    s.pattern?.includes('true|false') ? 'false' : s.pattern?.includes('kb|mb') ? '4mb' : k === 'tenantDomain' ? 'vault.example.com' : k === 'smtpFrom' ? 'Vault <v@example.com>' : '0',
  ]),
);
const recipients = Array.from({ length: 5 }, (_, i) => `age1${'q'.repeat(57)}${i}`).join(',');
const everything = {
  keysDatabase: { url: 'postgres://keys@db:5432/keys' },
  files: { s3: { region: 'eu-west-1', endpoint: 'https://s3.example.com' } },
  api: {
    settings: apiSettings,
    notifications: { existingSecret: 'mail', smtpUrlKey: 'smtp', smsWebhookUrlKey: 'sms' },
    oidc: { issuer: 'https://idp.example.com', clientId: 'vault', roleMap: '{"vault-admins":"admin"}', groupsClaim: 'groups', redirectUrl: 'https://vault.example.com/oidc/callback', tokenSeconds: '600', clientSecret: { name: 'oidc', key: 'client-secret' } },
  },
  tokenizer: { settings: { rotateAfterSeals: '1000000', keyringCheckSeconds: '0', recoveryRecipients: recipients, keyCacheSeconds: '60' } },
  privacyEvents: { dispatchSeconds: '1', retrySeconds: '1', retryFirstMs: '1', retentionSeconds: '1', timeoutMs: '1', maxResponseBytes: '1', concurrency: '1', allowAddresses: '10.0.0.0/8', maxSubscriptions: '1', measureSeconds: '1', natsUrl: 'nats://nats:4222', natsSubjectPrefix: 'strongroom', erasureConfirmSeconds: '1' },
  auditSinks: { sinks: [{ name: 'soc', type: 'syslog', host: 'relay', port: 6514 }], seconds: '1', lagWarn: '100', tsaUrl: 'https://tsa.example.com', tsaTimeoutMs: '5000' },
  auditCheckpoints: {
    seconds: '0',
    events: '500',
    persistence: { existingClaim: 'checkpoints' },
    s3: {
      bucket: 'audit',
      prefix: 'cp/',
      region: 'eu-west-3',
      endpoint: 'https://minio.example.com',
      forcePathStyle: 'true',
      objectLock: 'on',
      lockMode: 'GOVERNANCE',
      retentionDays: '30',
      credentials: { existingSecret: 'audit-s3' },
    },
  },
};

describe('chart settings', () => {
  it('offers every setting the api and the tokenizer read, each to its own container', () => {
    expect(validate(values(everything)), JSON.stringify(validate.errors)).toBe(true);
    const { api, tokenizer } = pod(values(everything));
    // Static custody and the HSM's settings (by label, by slot) exclude each other: the three renders together.
    const tokEnv = new Map([...env(pod(values(helmMerge(everything, hsm('3')))).tokenizer), ...env(pod(values(helmMerge(everything, hsm()))).tokenizer), ...env(tokenizer)]);
    // The local file store's directory and the bucket's settings exclude each other: both renders together.
    const apiEnv = new Map([...env(pod(values(helmMerge(everything, { files: { store: 'local' }, api: { replicas: 1 }, keyring: { source: 'persistentVolume' } }))).api), ...env(api)]);
    for (const name of [...read('api/config.ts'), ...read('api/config-oidc.ts'), ...read('api/config-events.ts'), ...read('api/config-audit-sinks.ts')]) {
      if (NOT_OFFERED[name]) continue;
      expect(apiEnv.has(name), name).toBe(true);
      expect(tokEnv.has(name) && !['STRONGROOM_DATA_DIR', 'STRONGROOM_TOKENIZER_SOCKET', 'STRONGROOM_LOG_LEVEL', 'STRONGROOM_LOG_FORMAT'].includes(name), name).toBe(false);
    }
    for (const name of read('tokenizer/config.ts')) {
      if (NOT_OFFERED[name] || name === 'STRONGROOM_WRAPPING_KEY_FILE' && tokEnv.has(name)) continue;
      expect(tokEnv.has(name), name).toBe(true);
    }
    // The tokenizer's own settings, and every keyring setting, never reach the api.
    for (const name of ['STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS', 'STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS', 'STRONGROOM_RECOVERY_RECIPIENTS']) {
      expect(apiEnv.has(name), name).toBe(false);
    }
    expect([...env(pod(values(helmMerge(everything, hsm()))).api).keys()].filter((n) => /PKCS11|CUSTODY|KEY_CACHE/.test(n))).toEqual([]);
    expect([...tokEnv.keys()].filter((n) => /AUDIT|SMTP|SMS|S3|AWS_|DATABASE|LEGACY|REWRAP/.test(n))).toEqual([]);
    // Values arrive as given.
    expect(tokEnv.get('STRONGROOM_RECOVERY_RECIPIENTS')!.value).toBe(recipients);
    expect(tokEnv.get('STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS')!.value).toBe('1000000');
    expect(apiEnv.get('STRONGROOM_LEGACY_BATCH')!.value).toBe('0');
    expect(apiEnv.get('STRONGROOM_BODY_LIMIT')!.value).toBe('4mb');
    expect(apiEnv.get('STRONGROOM_AUDIT_CHECKPOINT_EVENTS')!.value).toBe('500');
    expect(apiEnv.get('STRONGROOM_AUDIT_CHECKPOINTS_S3_LOCK_MODE')!.value).toBe('GOVERNANCE');
    expect(apiEnv.get('STRONGROOM_AUDIT_CHECKPOINTS_S3_FORCE_PATH_STYLE')!.value).toBe('true');
    expect(JSON.parse(apiEnv.get('STRONGROOM_AUDIT_SINKS')!.value!)).toEqual([{ name: 'soc', type: 'syslog', host: 'relay', port: 6514 }]);
    // Sinks whose headers carry tokens come from a Secret.
    const fromSecret = env(pod(values(helmMerge(everything, { auditSinks: { existingSecret: 'siem', secretKey: 'sinks' } }))).api).get('STRONGROOM_AUDIT_SINKS')!;
    expect(fromSecret.valueFrom?.secretKeyRef).toEqual({ name: 'siem', key: 'sinks' });
  });

  it('signs the console in by OpenID Connect only when complete, the client secret a file in the api alone', () => {
    const oidc = { issuer: 'https://idp.example.com', clientId: 'vault', roleMap: '{"g":"admin"}', clientSecret: { name: 'oidc', key: 'client-secret' } };
    expect(validate(values({ api: { oidc } })), JSON.stringify(validate.errors)).toBe(true);
    for (const incomplete of [{ ...oidc, clientId: '' }, { ...oidc, roleMap: '' }, { ...oidc, issuer: 'idp.example.com' }]) {
      expect(validate(values({ api: { oidc: incomplete } })), JSON.stringify(incomplete)).toBe(false);
    }
    const spec = renderer.manifest('api-deployment.yaml', values({ api: { oidc } })).spec.template.spec;
    const { api, tokenizer } = pod(values({ api: { oidc } }));
    expect(env(api).get('STRONGROOM_OIDC_CLIENT_SECRET_FILE')!.value).toBe('/etc/strongroom/oidc/client-secret');
    expect(env(api).has('STRONGROOM_OIDC_CLIENT_SECRET')).toBe(false);
    expect(api.volumeMounts!.some((m) => m.name === 'oidc-client-secret')).toBe(true);
    expect((tokenizer.volumeMounts ?? []).some((m) => m.name === 'oidc-client-secret')).toBe(false);
    expect([...env(tokenizer).keys()].filter((n) => n.includes('OIDC'))).toEqual([]);
    expect((spec.volumes as { name: string; secret?: { secretName: string } }[]).find((v) => v.name === 'oidc-client-secret')!.secret!.secretName).toBe('oidc');
    // Off by default: nothing of it renders.
    expect([...env(pod(values()).api).keys()].filter((n) => n.includes('OIDC'))).toEqual([]);
  });

  it('passes nothing it was not given: the programs keep their defaults', () => {
    const { api, tokenizer } = pod(values());
    const set = [...env(api).keys(), ...env(tokenizer).keys()];
    const offered = [
      ...Object.values(schema.properties.api.properties.settings.properties as Record<string, { description: string }>),
      ...Object.values(schema.properties.tokenizer.properties.settings.properties as Record<string, { description: string }>),
    ].map((s) => s.description);
    expect(offered.length).toBeGreaterThan(30);
    expect(set.filter((n) => offered.includes(n) || /AUDIT|SMTP|SMS|RECOVERY/.test(n))).toEqual([]);
  });

  it('takes the checkpoint bucket’s keys and the mail URLs from Secret references only', () => {
    const { api } = pod(values(everything));
    const e = env(api);
    expect(e.get('STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID')!.valueFrom!.secretKeyRef).toEqual({ name: 'audit-s3', key: 'AWS_ACCESS_KEY_ID' });
    expect(e.get('STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY')!.valueFrom!.secretKeyRef).toEqual({ name: 'audit-s3', key: 'AWS_SECRET_ACCESS_KEY' });
    expect(e.get('STRONGROOM_SMTP_URL')!.valueFrom!.secretKeyRef).toEqual({ name: 'mail', key: 'smtp' });
    expect(e.get('STRONGROOM_SMS_WEBHOOK_URL')!.valueFrom!.secretKeyRef).toEqual({ name: 'mail', key: 'sms' });
    for (const name of ['STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID', 'STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY', 'STRONGROOM_SMTP_URL']) {
      expect(e.get(name)!.value, name).toBeUndefined();
    }
    // No value can hold a key or a URL in plain text: the schema refuses them.
    for (const bad of [
      { auditCheckpoints: { s3: { accessKeyId: 'AKIA' } } },
      { auditCheckpoints: { s3: { credentials: { secretAccessKey: 'x' } } } },
      { api: { settings: { smtpUrl: 'smtp://u:p@mail' } } },
      { tokenizer: { settings: { wrappingKey: 'ab' } } },
      { api: { settings: { sweepSeconds: 60 } } },
      { tokenizer: { settings: { recoveryRecipients: 'age1abc' } } },
    ]) {
      expect(validate(values(bad)), JSON.stringify(bad)).toBe(false);
    }
  });

  it('mounts the checkpoint volume in the api container only, and opens the way to the checkpoint bucket', () => {
    const { api, tokenizer, volumes } = pod(values(everything));
    const dir = env(api).get('STRONGROOM_AUDIT_CHECKPOINT_DIR')!.value!;
    const mount = api.volumeMounts!.find((m) => m.mountPath === dir)!;
    expect(volumes.find((v) => v.name === mount.name)!.persistentVolumeClaim).toEqual({ claimName: 'checkpoints' });
    expect((tokenizer.volumeMounts ?? []).map((m) => m.name)).not.toContain(mount.name);
    const egressPorts = (v: object) =>
      (renderer.manifest('networkpolicy-api.yaml', v).spec.egress as { ports: { port: number }[] }[]).flatMap((r) => r.ports.map((p) => p.port));
    const local = { files: { store: 'local' }, api: { replicas: 1 }, keyring: { source: 'persistentVolume' } };
    expect(egressPorts(values(local))).not.toContain(defaults.networkPolicy.s3Port);
    expect(egressPorts(values(helmMerge(local, { auditCheckpoints: { s3: { bucket: 'audit' } } })))).toContain(defaults.networkPolicy.s3Port);
  });
});
