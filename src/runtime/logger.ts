// Structured logging on pino: one JSON object per line, written asynchronously (stdout; errors on stderr), with
// secrets kept out at any depth and the current request's correlation and trace ids on every line (./log-context.ts).
//
// Callers pass fields, never pre-formatted strings holding request data, so that redaction can see every value.
import { pino, symbols, type DestinationStream, type LevelWithSilent } from "pino";
import { createRequire } from "node:module";
import type PinoPretty from "pino-pretty";
import { currentLogContext } from "./log-context.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every line it writes (a pino child: the bindings are serialized once). */
  child(fields: Record<string, unknown>): Logger;
  /** Writes out what the asynchronous destination still holds; called on shutdown (and by pino on exit). */
  flush(): void;
}

/** Field names whose values are secrets and never reach a log line, whatever their nesting. */
// Matches whole names (`apiKey`, `refresh_token`, `client_secret`), not ids of such things (`apiKeyId`, `tokenType`).
const secretField =
  /(secret|password|passphrase|token|authorization|^(x[-_])?api[-_]?key|cookie|code[-_]?verifier|^code)$/i;

/** Deeper than this, a value is replaced whole: a line never carries a structure redaction did not walk. */
const maxDepth = 12;

/**
 * Replaces the value of every secret-named field with "[redacted]", at any depth and inside arrays; keeps Error
 * stacks readable. pino's own `redact` takes paths, and a wildcard matches one level only, so it cannot promise
 * "any depth": this walk does, in `formatters.log` and on every child's bindings.
 */
export function redact(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (depth === 0 && isPlainFlat(value)) return value;
  if (value === null || typeof value !== "object") return value;
  if (depth > maxDepth) return "[too deep]";
  if (seen.has(value)) return "[circular]";
  seen.add(value);
  try {
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, seen));
    if (value instanceof Date) return value.toISOString();
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      out[key] = isSecretName(key) ? "[redacted]" : redact(field, depth + 1, seen);
    }
    return out;
  } finally {
    // A value met twice side by side (not inside itself) is not a cycle.
    seen.delete(value);
  }
}

/**
 * Whether a line's fields need no walk: an object of primitives only, none under a secret name. Nearly every line
 * (a request line) is such; it is written as it is, without a copy (the walk cost more than the rest of the line).
 */
function isPlainFlat(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Error) return false;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if ((field !== null && typeof field === "object") || isSecretName(key)) return false;
  }
  return true;
}

/** Field names seen so far and whether each is secret; names are our code's, a bounded set (capped anyway). */
const secretNames = new Map<string, boolean>();
function isSecretName(key: string): boolean {
  let secret = secretNames.get(key);
  if (secret === undefined) {
    secret = secretField.test(key);
    if (secretNames.size < 10_000) secretNames.set(key, secret);
  }
  return secret;
}

export interface LoggerOptions {
  /** LOG_LEVEL; default info. */
  level?: LogLevel;
  /**
   * Where lines go, synchronously, without the newline: tests capture lines here. Absent: an asynchronous pino
   * destination on stdout (error lines on stderr), flushed on shutdown and on exit.
   */
  write?: (line: string, level: LogLevel) => void;
  /** LOG_PRETTY: human-readable colored lines (pino-pretty) for development, synchronous, on stdout. */
  pretty?: boolean;
  now?: () => number;
}

/** How long a line waits at most for others to share its write to stdout. */
export const logFlushMs = 250;

const labelOf: Record<number, LogLevel> = { 20: "debug", 30: "info", 40: "warn", 50: "error" };

export function createLogger(options: LoggerOptions = {}, bound: Record<string, unknown> = {}): Logger {
  const now = options.now ?? Date.now;
  const destination = destinationFor(options);
  const base = pino(
    {
      level: (options.level ?? "info") satisfies LevelWithSilent,
      base: undefined,
      messageKey: "msg",
      timestamp: () => `,"time":"${new Date(now()).toISOString()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => redact(fields) as Record<string, unknown>,
      },
      // The request the line is written for (correlation id, trace id, route, app, company); the call's own fields win.
      mixin: () => currentLogContext() ?? {},
    },
    destination,
  );
  const root = Object.keys(bound).length > 0 ? base.child(redact(bound) as Record<string, unknown>) : base;
  const flush = () => {
    try {
      (destination as { flushSync?: () => void }).flushSync?.();
    } catch {
      // Not writable (a closed pipe): nothing more can be written anyway.
    }
  };
  return wrap(root, flush);
}

function wrap(log: pino.Logger, flush: () => void): Logger {
  return {
    debug: (message, fields) => log.debug(fields ?? {}, message),
    info: (message, fields) => log.info(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, fields) => log.error(fields ?? {}, message),
    // pino's `formatters.bindings` sees the root's base bindings only: a child's are redacted here, once.
    child: (fields) => wrap(log.child(redact(fields) as Record<string, unknown>), flush),
    flush,
  };
}

function destinationFor(options: LoggerOptions): DestinationStream {
  const write = options.write;
  if (write) {
    // needsMetadata: pino sets `lastLevel` before each write, so the capture learns the line's level.
    const capture = {
      [symbols.needsMetadataGsym]: true,
      lastLevel: 30,
      write(line: string) {
        write(line.endsWith("\n") ? line.slice(0, -1) : line, labelOf[capture.lastLevel] ?? "info");
      },
    };
    return capture;
  }
  if (options.pretty) {
    // Loaded only when asked for: a development aid that production processes never pay for.
    let pretty: typeof PinoPretty;
    try {
      pretty = createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty;
    } catch {
      // A production install (npm ci --omit=dev) has no pino-pretty: say so rather than crash on a require.
      throw new Error(
        "LOG_PRETTY=1 needs pino-pretty, a development dependency: run `npm install` (with dev dependencies) or unset LOG_PRETTY",
      );
    }
    return pretty({ colorize: true, sync: true, translateTime: "SYS:HH:MM:ss.l" });
  }
  // Asynchronous (SonicBoom, sync: false): a line never waits for the terminal or the pipe. pino flushes these
  // synchronously on exit; `flush()` on shutdown writes out the rest.
  // Each line goes to one of the two by its level (error and fatal: stderr), as pino.multistream with dedupe would,
  // without its walk over the streams for every line.
  // Lines on stdout are written 4 KB at a time, or within logFlushMs when fewer come: one write per line cost a
  // request about as much as its own answer's write (docs/benchmarks.md). Errors are written at once.
  const out = pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: logFlushMs });
  const err = pino.destination({ dest: 2, sync: false });
  const byLevel = {
    // needsMetadata: pino sets `lastLevel` before each write.
    [symbols.needsMetadataGsym]: true,
    lastLevel: 30,
    write(line: string) {
      (byLevel.lastLevel >= 50 ? err : out).write(line);
    },
    flushSync() {
      out.flushSync();
      err.flushSync();
    },
  };
  return byLevel;
}

/** A logger that drops everything; for unit tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ write: () => {} });
