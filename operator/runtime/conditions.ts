// Status conditions as Kubernetes API conventions want them: one entry per type, lastTransitionTime moving only
// when the status flips, observedGeneration saying which spec the condition speaks about.
import type { Condition } from '../types/resources.js';

/** The condition of this type in a status's list: the one way the operator looks a condition up. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function setCondition(conditions: Condition[] | undefined, next: Omit<Condition, 'lastTransitionTime'>, now: Date): Condition[] {
  const list = conditions ?? [];
  const previous = findCondition(list, next.type);
  const lastTransitionTime = previous && previous.status === next.status ? previous.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z');
  const condition: Condition = { ...next, lastTransitionTime };
  return previous ? list.map((c) => (c === previous ? condition : c)) : [...list, condition];
}
