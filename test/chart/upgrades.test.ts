// How `helm upgrade` replaces the api's pods: on PostgreSQL one new pod first and an old one down only once its
// successor is ready (a release and the one before side by side for a moment, which their expand-only migrations
// allow), kept whole by the PodDisruptionBudget; on the embedded database, which one process opens, Recreate.
import { describe, expect, it } from 'vitest';
import { defaults, renderer, validate, values } from './release.js';
import { helmMerge } from './render.js';

describe('the api rollout', () => {
  it('is rolling on PostgreSQL, never below the replicas asked for, with a PodDisruptionBudget', () => {
    const v = values();
    expect(validate(v), JSON.stringify(validate.errors)).toBe(true);
    expect(renderer.manifest('api-deployment.yaml', v).spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    expect(renderer.manifest('api-pdb.yaml', v).spec.minAvailable).toBe(1);
    const wider = values({ api: { rollingUpdate: { maxUnavailable: '25%', maxSurge: 2 } } });
    expect(validate(wider), JSON.stringify(validate.errors)).toBe(true);
    expect(renderer.manifest('api-deployment.yaml', wider).spec.strategy.rollingUpdate).toEqual({ maxUnavailable: '25%', maxSurge: 2 });
  });

  it('recreates the pod on the embedded database', () => {
    const v = helmMerge(defaults, { database: { embedded: true }, api: { replicas: 1 } });
    expect(renderer.manifest('api-deployment.yaml', v).spec.strategy).toEqual({ type: 'Recreate' });
  });

  it('refuses a surge or unavailability that is not a count or a percentage', () => {
    for (const bad of [{ maxUnavailable: -1, maxSurge: 1 }, { maxUnavailable: 0, maxSurge: 'one' }]) {
      expect(validate(values({ api: { rollingUpdate: bad } })), JSON.stringify(bad)).toBe(false);
    }
  });
});
