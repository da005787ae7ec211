// Every rejection names the field and the rule: `spec.jobs.deploy: a call job cannot have steps`.

export interface FieldError {
  /** Dotted path of the offending field, such as `spec.jobs.deploy.needs`. */
  field: string;
  message: string;
}

export function fieldError(field: string, message: string): FieldError {
  return { field, message };
}

export function formatFieldError(e: FieldError): string {
  return e.field ? `${e.field}: ${e.message}` : e.message;
}
