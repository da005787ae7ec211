// For the unit tests of src/plan, which may not import the controller's pool (src/kube/intern.ts).
import type { SharedValues } from '../api/objects.js';

/** Shares by JSON text, as the controller's pool does (unbounded, not frozen: tested there). */
export function sharedValues(): SharedValues {
  const kept = new Map<string, object>();
  return {
    share<T extends object>(value: T): T {
      const text = JSON.stringify(value);
      if (!kept.has(text)) kept.set(text, value);
      return kept.get(text) as T;
    },
  };
}
