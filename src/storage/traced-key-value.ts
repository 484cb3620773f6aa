// A span per Redis command (issue 41, TRACE_STORAGE_SPANS=1): the store's calls are each one command (a script's
// NOSCRIPT fallback adds the EVAL that loads it, inside the same span), so the store is wrapped here rather than
// ioredis instrumented: @opentelemetry/instrumentation-ioredis patches the module through require or import hooks,
// which an ESM program installs with a loader flag at start, and would trace the readiness PINGs too.
import {
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_STORED_PROCEDURE_NAME,
  ATTR_DB_SYSTEM_NAME,
} from "@opentelemetry/semantic-conventions";
import type { KeyValueStore } from "./key-value-store.js";
import { inStoreSpan, type StoreSpanAttributes } from "./store-spans.js";

/** db.system.name of Redis (database semantic conventions, "Redis"; not among the stable entry's values). */
export const redisSystemName = "redis";

/** The store with each command in a span, child of the caller's when that one records. */
export function tracedKeyValueStore(store: KeyValueStore, database: number): KeyValueStore {
  const namespace = String(database);
  const command = (operation: string, script?: string) => {
    const attributes: StoreSpanAttributes = {
      [ATTR_DB_SYSTEM_NAME]: redisSystemName,
      [ATTR_DB_NAMESPACE]: namespace,
      [ATTR_DB_OPERATION_NAME]: operation,
    };
    if (script) attributes[ATTR_DB_STORED_PROCEDURE_NAME] = script;
    return <T>(work: () => Promise<T>) => inStoreSpan(script ? `${operation} ${script}` : operation, attributes, work);
  };
  const hit = command("EVALSHA", "fixed-window-hit");
  const get = command("GET");
  const set = command("SET");
  const del = command("DEL");
  const scripts = new Map<string, ReturnType<typeof command>>();
  return {
    shared: store.shared,
    countTimeoutMs: store.countTimeoutMs,
    hit: (key, expiresAtMs) => hit(() => store.hit(key, expiresAtMs)),
    get: (key) => get(() => store.get(key)),
    set: (key, value, ttlMs) => set(() => store.set(key, value, ttlMs)),
    setIfAbsent: (key, value, ttlMs) => set(() => store.setIfAbsent(key, value, ttlMs)),
    del: (key) => del(() => store.del(key)),
    run: (script, keys, args) => {
      const traced = scripts.get(script.name) ?? command("EVALSHA", script.name);
      scripts.set(script.name, traced);
      return traced(() => store.run(script, keys, args));
    },
    close: () => store.close(),
    // Readiness is asked by probes, never inside a request: no span.
    ping: (timeoutMs) => store.ping(timeoutMs),
  };
}
