// What planner tests give a planner: a deep copy of its input, frozen, so a planner that changes
// what it was given throws (ES modules are strict) instead of passing by luck. Functions, Maps and
// Sets are passed as they are.

export function frozen<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map((v: unknown) => frozen(v))) as T;
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype)
    return value;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) copy[k] = frozen(v);
  return Object.freeze(copy) as T;
}
