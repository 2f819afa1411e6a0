// Status conditions as Kubernetes API conventions want them: one entry per type, lastTransitionTime moving only
// when the status flips, observedGeneration saying which spec the condition speaks about.
import type { Condition } from '../types/resources.js';

export function setCondition(conditions: Condition[] | undefined, next: Omit<Condition, 'lastTransitionTime'>, now: Date): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const previous = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = previous && previous.status === next.status ? previous.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z');
  const condition: Condition = { ...next, lastTransitionTime };
  if (i >= 0) list[i] = condition;
  else list.push(condition);
  return list;
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
