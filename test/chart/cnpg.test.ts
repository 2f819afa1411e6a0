// The chart's CloudNativePG option, rendered: the Cluster (instances, synchronous replication, storage, backups to
// an object store), the optional PgBouncer Pooler, and the api wired to the Cluster's -rw Service (or the Pooler)
// with the credentials CloudNativePG generates in "<cluster>-app". The schema and the chart's own checks refuse
// what CloudNativePG or the api could not run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { ChartRenderer, TemplateFailure, helmMerge } from './render.js';
import { loadConfig } from '../../api/config.js';

const chart = fileURLToPath(new URL('../../charts/strongroom/', import.meta.url));
const defaults = YAML.parse(readFileSync(join(chart, 'values.yaml'), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8')));
const renderer = new ChartRenderer(chart);
// Several api pods need a shared keyring and file store; these are the chart's answers that need no volume.
const shared = { keyring: { source: 'secret', existingSecret: 'strongroom-keyring' }, files: { store: 's3', s3: { bucket: 'files' } } };
const values = (over: object) => helmMerge(helmMerge(defaults, shared), over);
const cnpg = (over: object = {}) => values({ database: { cnpg: { enabled: true, ...over } } });
const backupsTo = (method: string) => ({
  backup: { enabled: true, method, destinationPath: 's3://vault-backups/prod', s3Credentials: { existingSecret: 'backup-keys' } },
});

/** The api container of the rendered Deployment, and its pod. */
function apiOf(v: object) {
  const deployment = renderer.manifest('api-deployment.yaml', v);
  const pod = deployment.spec.template.spec;
  const api = pod.containers.find((c: { name: string }) => c.name === 'api');
  const env = (name: string) => api.env.find((e: { name: string }) => e.name === name);
  return { pod, api, env, envNames: api.env.map((e: { name: string }) => e.name) as string[] };
}

function databaseEgress(v: object) {
  const policy = renderer.manifest('networkpolicy-api.yaml', v);
  return policy.spec.egress.find((r: { ports: { port: number }[] }) => r.ports.some((p) => p.port === 5432));
}

describe('database.cnpg', () => {
  it('is off by default: no CloudNativePG resource, and the api reads the URL from the database Secret', () => {
    const external = values({ database: { url: 'postgres://vault@pg.example:5432/vault?sslmode=require' } });
    expect(validate(external), JSON.stringify(validate.errors)).toBe(true);
    for (const f of ['cnpg-cluster.yaml', 'cnpg-pooler.yaml', 'cnpg-objectstore.yaml', 'cnpg-scheduledbackup.yaml']) {
      expect(renderer.render(f, external), f).toBe('');
    }
    const { env, envNames } = apiOf(external);
    expect(env('DATABASE_URL').valueFrom.secretKeyRef).toEqual({ name: 'sr-strongroom-database', key: 'url' });
    expect(envNames).not.toContain('CNPG_APP_PASSWORD');
    expect(renderer.manifest('secret-database.yaml', external).kind).toBe('Secret');
  });

  it('creates a Cluster with synchronous replication, storage and an owner that may create tenant roles', () => {
    const v = cnpg({ storage: { size: '50Gi', storageClass: 'fast' }, walStorage: { size: '10Gi' }, parameters: { max_connections: '300' } });
    expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
    const cluster = renderer.manifest('cnpg-cluster.yaml', v);
    expect(cluster).toMatchObject({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', metadata: { name: 'sr-strongroom-db', namespace: 'vault' } });
    expect(cluster.spec).toMatchObject({
      instances: 3,
      bootstrap: { initdb: { database: 'strongroom', owner: 'strongroom' } },
      managed: { roles: [{ name: 'strongroom', ensure: 'present', login: true, createrole: true }] },
      postgresql: { parameters: { max_connections: '300' }, synchronous: { method: 'any', number: 1, dataDurability: 'required' } },
      storage: { size: '50Gi', storageClass: 'fast' },
      walStorage: { size: '10Gi' },
      affinity: { enablePodAntiAffinity: true, topologyKey: 'kubernetes.io/hostname' },
    });
    expect(cluster.spec.backup).toBeUndefined();
    expect(cluster.spec.plugins).toBeUndefined();
    // Without synchronous replication or role creation, nothing of them is left in the Cluster.
    const plain = renderer.manifest('cnpg-cluster.yaml', cnpg({ createRole: false, synchronous: { enabled: false } }));
    expect(plain.spec.postgresql).toBeUndefined();
    expect(plain.spec.managed).toBeUndefined();
  });

  it('points the api at the Cluster’s -rw Service with the generated <cluster>-app credentials, checked TLS and egress to the instances only', () => {
    const v = cnpg();
    const cluster = renderer.manifest('cnpg-cluster.yaml', v);
    const name = cluster.metadata.name as string;
    const { pod, api, env, envNames } = apiOf(v);
    expect(env('CNPG_APP_USER').valueFrom.secretKeyRef).toEqual({ name: `${name}-app`, key: 'username' });
    expect(env('CNPG_APP_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: `${name}-app`, key: 'password' });
    // Kubernetes expands $(NAME) only from entries defined before the one that uses it.
    expect(envNames.indexOf('CNPG_APP_USER')).toBeLessThan(envNames.indexOf('DATABASE_URL'));
    expect(envNames.indexOf('CNPG_APP_PASSWORD')).toBeLessThan(envNames.indexOf('DATABASE_URL'));
    const url = env('DATABASE_URL').value as string;
    expect(env('DATABASE_URL').valueFrom).toBeUndefined();
    const parsed = new URL(url);
    expect(parsed.username).toBe('$(CNPG_APP_USER)');
    expect(parsed.password).toBe('$(CNPG_APP_PASSWORD)');
    expect(parsed.hostname).toBe(`${name}-rw`);
    expect(parsed.port).toBe('5432');
    expect(parsed.pathname).toBe(`/${cluster.spec.bootstrap.initdb.database}`);
    expect(Object.fromEntries(parsed.searchParams)).toEqual({
      uselibpqcompat: 'true',
      sslmode: 'verify-full',
      sslrootcert: '/var/run/secrets/strongroom/database-ca/ca.crt',
    });
    // The CA that CloudNativePG made for the Cluster is mounted where sslrootcert points.
    const caVolume = pod.volumes.find((vol: { name: string }) => vol.name === 'database-ca');
    expect(caVolume.secret).toEqual({ secretName: `${name}-ca`, items: [{ key: 'ca.crt', path: 'ca.crt' }] });
    expect(api.volumeMounts).toContainEqual({ name: 'database-ca', mountPath: '/var/run/secrets/strongroom/database-ca', readOnly: true });
    // Once Kubernetes has put the generated credentials in, the api accepts the URL.
    const expanded = url.replace('$(CNPG_APP_USER)', 'strongroom').replace('$(CNPG_APP_PASSWORD)', 'Zx81abc');
    expect(loadConfig({ DATABASE_URL: expanded }).databaseUrl).toBe(expanded);
    // No Secret of the chart's own holds a database URL.
    expect(renderer.render('secret-database.yaml', v)).toBe('');
    expect(databaseEgress(v).to).toEqual([{ podSelector: { matchLabels: { 'cnpg.io/cluster': name } } }]);
    // Without TLS no CA is mounted and the URL says so.
    const clear = apiOf(cnpg({ sslMode: 'disable' }));
    expect(new URL(clear.env('DATABASE_URL').value).searchParams.get('sslmode')).toBe('disable');
    expect(clear.pod.volumes.map((vol: { name: string }) => vol.name)).not.toContain('database-ca');
  });

  it('puts an optional PgBouncer Pooler (session mode) in front of the primary and sends the api through it', () => {
    const v = cnpg({ createRole: false, pooler: { enabled: true, instances: 3 } });
    expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
    const pooler = renderer.manifest('cnpg-pooler.yaml', v);
    expect(pooler).toMatchObject({
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'Pooler',
      metadata: { name: 'sr-strongroom-db-pooler-rw' },
      spec: { cluster: { name: 'sr-strongroom-db' }, instances: 3, type: 'rw', pgbouncer: { poolMode: 'session', parameters: { max_client_conn: '1000' } } },
    });
    expect(new URL(apiOf(v).env('DATABASE_URL').value).hostname).toBe(pooler.metadata.name);
    expect(databaseEgress(v).to).toEqual([{ podSelector: { matchLabels: { 'cnpg.io/poolerName': pooler.metadata.name } } }]);
    // Peers given by hand win over the chart's own.
    const peers = [{ ipBlock: { cidr: '10.0.0.0/8' } }];
    expect(databaseEgress(helmMerge(v, { networkPolicy: { databasePeers: peers } })).to).toEqual(peers);
  });

  it('backs up to an object store through the Barman Cloud plugin: ObjectStore, the Cluster’s WAL archiver, a ScheduledBackup', () => {
    const v = cnpg({ ...backupsTo('plugin'), backup: { ...backupsTo('plugin').backup, endpointURL: 'https://minio.example', retentionPolicy: '14d' } });
    expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
    const store = renderer.manifest('cnpg-objectstore.yaml', v);
    expect(store).toMatchObject({
      apiVersion: 'barmancloud.cnpg.io/v1',
      kind: 'ObjectStore',
      spec: {
        retentionPolicy: '14d',
        configuration: {
          destinationPath: 's3://vault-backups/prod',
          endpointURL: 'https://minio.example',
          s3Credentials: { accessKeyId: { name: 'backup-keys', key: 'ACCESS_KEY_ID' }, secretAccessKey: { name: 'backup-keys', key: 'ACCESS_SECRET_KEY' } },
          wal: { compression: 'gzip' },
        },
      },
    });
    const cluster = renderer.manifest('cnpg-cluster.yaml', v);
    expect(cluster.spec.plugins).toEqual([{ name: 'barman-cloud.cloudnative-pg.io', isWALArchiver: true, parameters: { barmanObjectName: store.metadata.name } }]);
    expect(cluster.spec.backup).toBeUndefined();
    const scheduled = renderer.manifest('cnpg-scheduledbackup.yaml', v);
    expect(scheduled).toMatchObject({
      apiVersion: 'postgresql.cnpg.io/v1',
      kind: 'ScheduledBackup',
      spec: { schedule: '0 0 3 * * *', cluster: { name: cluster.metadata.name }, method: 'plugin', pluginConfiguration: { name: 'barman-cloud.cloudnative-pg.io' } },
    });
  });

  it('or with the Cluster’s in-tree barmanObjectStore, and with the pod’s identity instead of keys', () => {
    const v = cnpg({ backup: { ...backupsTo('barmanObjectStore').backup, s3Credentials: { inheritFromIAMRole: true } } });
    expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
    expect(renderer.render('cnpg-objectstore.yaml', v)).toBe('');
    const cluster = renderer.manifest('cnpg-cluster.yaml', v);
    expect(cluster.spec.backup).toEqual({
      retentionPolicy: '30d',
      barmanObjectStore: { destinationPath: 's3://vault-backups/prod', s3Credentials: { inheritFromIAMRole: true }, wal: { compression: 'gzip' }, data: { compression: 'gzip' } },
    });
    expect(cluster.spec.plugins).toBeUndefined();
    expect(renderer.manifest('cnpg-scheduledbackup.yaml', v).spec).toMatchObject({ method: 'barmanObjectStore', cluster: { name: cluster.metadata.name } });
  });

  it('is refused by the schema when CloudNativePG or the api could not run it', () => {
    expect(validate(cnpg()), JSON.stringify(validate.errors)).toBe(true);
    const bad: [string, object][] = [
      ['with an external URL as well', values({ database: { url: 'postgres://x@y/z', cnpg: { enabled: true } } })],
      ['with an existing Secret as well', values({ database: { existingSecret: 'db', cnpg: { enabled: true } } })],
      ['with the embedded database', values({ database: { embedded: true, cnpg: { enabled: true } } })],
      ['no instance', cnpg({ instances: 0 })],
      ['one instance with a synchronous standby', cnpg({ instances: 1 })],
      ['an unknown synchronous method', cnpg({ synchronous: { method: 'all' } })],
      ['an unknown durability', cnpg({ synchronous: { dataDurability: 'maybe' } })],
      ['a size in words', cnpg({ storage: { size: 'lots' } })],
      ['a TLS mode libpq lacks', cnpg({ sslMode: 'prefer' })],
      ['an unknown key', cnpg({ replicas: 3 })],
      ['a cluster name with capitals', cnpg({ clusterName: 'VaultDB' })],
      ['an owner that is no PostgreSQL name', cnpg({ owner: 'vault-owner' })],
      ['transaction pooling', cnpg({ pooler: { enabled: true, poolMode: 'transaction' } })],
      ['backups with nowhere to go', cnpg({ backup: { enabled: true } })],
      ['backups to a local path', cnpg({ backup: { ...backupsTo('plugin').backup, destinationPath: '/backups' } })],
      ['an unknown backup method', cnpg({ backup: { ...backupsTo('volumeSnapshot').backup } })],
      ['a five-field cron', cnpg({ backup: { ...backupsTo('plugin').backup, schedule: '0 3 * * *' } })],
      ['a retention in hours', cnpg({ backup: { ...backupsTo('plugin').backup, retentionPolicy: '12h' } })],
      ['a numeric PgBouncer parameter', cnpg({ pooler: { enabled: true, parameters: { max_client_conn: 1000 } } })],
    ];
    for (const [what, v] of bad) expect(validate(v), what).toBe(false);
  });

  it('is refused by the chart’s checks where the schema cannot see it', () => {
    const fails = (v: object) => () => renderer.render('api-deployment.yaml', v);
    expect(fails(cnpg({ synchronous: { number: 3 } }))).toThrow(/synchronous\.number must be at most/);
    expect(fails(cnpg({ backup: { enabled: true, destinationPath: 's3://b/p' } }))).toThrow(/s3Credentials/);
    expect(fails(cnpg({ clusterName: 'db', createRole: false, pooler: { enabled: true, name: 'db' } }))).toThrow(/must differ/);
    // The tenants' own connections start with options=-c role=…, which PgBouncer refuses.
    expect(fails(cnpg({ pooler: { enabled: true } }))).toThrow(/createRole to false/);
    expect(fails(cnpg({ createRole: false, pooler: { enabled: true } }))).not.toThrow();
    expect(fails(values({ database: { url: 'postgres://x@y/z', cnpg: { enabled: true } } }))).toThrow(TemplateFailure);
    expect(fails(values({}))).toThrow(/database\.cnpg\.enabled/);
    expect(fails(cnpg({ synchronous: { number: 2 } }))).not.toThrow();
  });

  it('ships an example values file that uses it, valid against the schema', () => {
    const example = helmMerge(defaults, YAML.parse(readFileSync(join(chart, 'examples/values-cnpg.yaml'), 'utf8')));
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(example.database.cnpg).toMatchObject({ enabled: true, backup: { enabled: true }, synchronous: { enabled: true } });
    const cluster = renderer.manifest('cnpg-cluster.yaml', example);
    expect(cluster.spec.affinity.topologyKey).toBe('topology.kubernetes.io/zone');
    expect(new URL(apiOf(example).env('DATABASE_URL').value).hostname).toBe(`${cluster.metadata.name}-rw`);
    expect(renderer.manifest('cnpg-scheduledbackup.yaml', example).spec.cluster.name).toBe(cluster.metadata.name);
  });
});
