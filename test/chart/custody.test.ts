// Key custody in the chart, rendered: the api takes the root token from a mounted Secret file and holds no key
// material; the tokenizer holds no database, root token or object store setting; the operator's Secret rights
// stop at the namespace it watches (never the release's) unless cluster-wide is asked for.
import { describe, expect, it } from 'vitest';
import { TemplateFailure } from './render.js';
import { defaults, renderer, validate, values } from './release.js';

interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  volumeMounts?: { name: string; mountPath: string }[];
}

function containers(v: object): { api: Container; tokenizer: Container; volumes: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[] } {
  const pod = renderer.manifest('api-deployment.yaml', v).spec.template.spec;
  const all: Container[] = [...(pod.initContainers ?? []), ...pod.containers];
  return { api: all.find((c) => c.name === 'api')!, tokenizer: all.find((c) => c.name === 'tokenizer')!, volumes: pod.volumes };
}

const envNames = (c: Container) => (c.env ?? []).map((e) => e.name);

describe('chart key custody', () => {
  it('gives the api the root token as a file from the root token Secret, and no environment variable holds it', () => {
    const { api, volumes } = containers(values());
    expect(envNames(api)).not.toContain('STRONGROOM_ROOT_TOKEN');
    const file = api.env!.find((e) => e.name === 'STRONGROOM_ROOT_TOKEN_FILE')!.value!;
    const mount = api.volumeMounts!.find((m) => file.startsWith(`${m.mountPath}/`))!;
    expect(mount).toBeDefined();
    const volume = volumes.find((v) => v.name === mount.name)!;
    expect(volume.secret!.secretName).toBe(renderer.manifest('secret-root-token.yaml', values()).metadata.name);
    expect(volume.secret!.items).toEqual([{ key: defaults.rootToken.existingSecretKey, path: file.slice(mount.mountPath.length + 1) }]);
    // No value reaches the api through secretKeyRef that names the root token Secret.
    expect(JSON.stringify(api.env)).not.toContain(volume.secret!.secretName);
  });

  it('keeps key material out of the api container, and the database, root token and S3 settings out of the tokenizer', () => {
    for (const over of [{}, { files: { s3: { accessKeyId: 'AKIA', secretAccessKey: 'x' } } }]) {
      const { api, tokenizer } = containers(values(over));
      expect(envNames(api).filter((n) => /WRAPPING_KEY|RECOVERY/.test(n))).toEqual([]);
      expect((api.volumeMounts ?? []).map((m) => m.name)).not.toContain('wrapping-key');
      expect((api.volumeMounts ?? []).map((m) => m.name)).not.toContain('data');
      expect(envNames(tokenizer).filter((n) => /DATABASE|ROOT_TOKEN|SMTP|S3|AWS_/.test(n))).toEqual([]);
      expect((tokenizer.volumeMounts ?? []).map((m) => m.name)).not.toContain('root-token');
    }
  });

  it('installs the operator namespaced by default: a Role and RoleBinding for Secrets in "<release>-tenants", no ClusterRole', () => {
    const v = values();
    expect(validate(v)).toBe(true);
    expect(renderer.render('operator-clusterrole.yaml', v)).toBe('');
    expect(renderer.render('operator-clusterrolebinding.yaml', v)).toBe('');
    const role = renderer.manifest('operator-role.yaml', v);
    const binding = renderer.manifest('operator-rolebinding.yaml', v);
    expect(role.metadata.namespace).toBe('vault-tenants');
    expect(binding.metadata.namespace).toBe('vault-tenants');
    expect(role.rules.some((r: { resources: string[] }) => r.resources.includes('secrets'))).toBe(true);
    const env = renderer.manifest('operator-deployment.yaml', v).spec.template.spec.containers[0].env;
    expect(env).toContainEqual({ name: 'WATCH_NAMESPACE', value: 'vault-tenants' });
  });

  it('moves the Role to operator.watchNamespace, and grants every namespace only with operator.clusterWide', () => {
    const team = values({ operator: { watchNamespace: 'team-a' } });
    expect(renderer.manifest('operator-role.yaml', team).metadata.namespace).toBe('team-a');
    expect(renderer.manifest('operator-rolebinding.yaml', team).metadata.namespace).toBe('team-a');

    const wide = values({ operator: { clusterWide: true } });
    expect(validate(wide)).toBe(true);
    expect(renderer.render('operator-role.yaml', wide)).toBe('');
    expect(renderer.manifest('operator-clusterrole.yaml', wide).kind).toBe('ClusterRole');
    const env = renderer.manifest('operator-deployment.yaml', wide).spec.template.spec.containers[0].env;
    expect(env.map((e: { name: string }) => e.name)).not.toContain('WATCH_NAMESPACE');

    const both = values({ operator: { clusterWide: true, watchNamespace: 'team-a' } });
    expect(() => renderer.render('api-deployment.yaml', both)).toThrow(TemplateFailure);
    expect(validate(values({ operator: { clusterWide: 'yes' } }))).toBe(false);
  });
});
