// Prometheus metrics of the webhook: requests and latency by kind, operation and result.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const labelNames = ['kind', 'operation', 'result'] as const;
export const requests = new Counter({
  name: 'krt_webhook_requests_total',
  help: 'Admission reviews answered, by kind, operation and result (allowed, denied, malformed).',
  labelNames,
  registers: [registry],
});
export const latency = new Histogram({
  name: 'krt_webhook_request_duration_seconds',
  help: 'Time to answer an admission review, by kind, operation and result.',
  labelNames,
  buckets: [0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  registers: [registry],
});
