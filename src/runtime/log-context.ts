// What every log line written while serving one request carries, wherever in the process it is written: the
// correlation id, the trace id and, once known, the route, the app and the company. Held in AsyncLocalStorage so the
// services' loggers, built once at start, need no per-request child; the logger's mixin reads it (./logger.ts).
import { AsyncLocalStorage } from "node:async_hooks";

export type LogContext = Record<string, string | number | undefined>;

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `fields` on every line it logs, and on every line logged by what it awaits. */
export function runWithLogContext<T>(fields: LogContext, work: () => T): T {
  return storage.run({ ...fields }, work);
}

/** Adds what became known mid-request (the app, the company) to the current request's lines; outside one, nothing. */
export function addToLogContext(fields: LogContext): void {
  const current = storage.getStore();
  if (current) Object.assign(current, fields);
}

/** A copy of the current request's fields (pino merges into it), or undefined outside a request. */
export function currentLogContext(): LogContext | undefined {
  const current = storage.getStore();
  return current ? { ...current } : undefined;
}
