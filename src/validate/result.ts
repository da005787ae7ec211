import type { FieldError } from '../fielderror.js';

/** What admission (and `krt validate`) answers: errors deny, warnings are shown. */
export interface ValidationResult {
  errors: FieldError[];
  warnings: string[];
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
