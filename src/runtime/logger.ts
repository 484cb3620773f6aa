// Structured logging: one JSON object per line on stdout (stderr for errors), with secrets kept out.
//
// Callers pass fields, never pre-formatted strings holding request data, so that redaction can see every value.

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line it writes. */
  child(fields: Record<string, unknown>): Logger;
}

const levels: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Field names whose values are secrets and never reach a log line, whatever their nesting. */
// Matches whole names (`apiKey`, `refresh_token`, `client_secret`), not ids of such things (`apiKeyId`, `tokenType`).
const secretField = /(secret|password|passphrase|token|authorization|^(x[-_])?api[-_]?key|cookie|code[-_]?verifier|^code)$/i;

/** Replaces the value of every secret-named field with "[redacted]"; keeps Error stacks readable. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] = secretField.test(key) ? "[redacted]" : redact(field, depth + 1);
  }
  return out;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; defaults to process.stdout / process.stderr. Tests capture lines here. */
  write?: (line: string, level: LogLevel) => void;
  now?: () => number;
}

export function createLogger(options: LoggerOptions = {}, bound: Record<string, unknown> = {}): Logger {
  const threshold = levels[options.level ?? "info"];
  const now = options.now ?? Date.now;
  const write =
    options.write ??
    ((line: string, level: LogLevel) => (level === "error" ? process.stderr : process.stdout).write(line + "\n"));
  const log = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (levels[level] < threshold) return;
    const entry = { time: new Date(now()).toISOString(), level, msg: message, ...(redact({ ...bound, ...fields }) as object) };
    write(JSON.stringify(entry), level);
  };
  return {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** A logger that drops everything; for unit tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ write: () => {} });
