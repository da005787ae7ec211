// One structured JSON logger for every process (docs/architecture.md: telemetry is one small module of the API layer).
import { pino } from 'pino';

export const log = pino({
  level: process.env.KRT_LOG_LEVEL ?? 'info',
  base: { component: process.env.KRT_COMPONENT },
  timestamp: pino.stdTimeFunctions.isoTime,
});

export type Logger = typeof log;
