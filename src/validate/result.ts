import type { FieldError } from '../fielderror.js';

/** What admission (and `krt validate`) answers: errors deny, warnings are shown. */
export interface ValidationResult {
  errors: FieldError[];
  warnings: string[];
}
