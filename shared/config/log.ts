// pino JSON logs (DESIGN §10). Logs never carry request bodies, header values
// or query strings; callers log route ids and outcomes only.
import { pino, type Logger } from 'pino';
import type { HostName, LogLevel } from './config.js';

export type { Logger };

export function createLogger(service: HostName | 'supervisor', level: LogLevel): Logger {
  return pino({ level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime });
}
