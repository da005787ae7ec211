// One structured JSON logger for every process (STYLE.md §3: telemetry is one small module).
import { pino } from 'pino';

export const log = pino({
  level: process.env.KRT_LOG_LEVEL ?? 'info',
  base: { component: process.env.KRT_COMPONENT },
  timestamp: pino.stdTimeFunctions.isoTime,
});

export type Logger = typeof log;
