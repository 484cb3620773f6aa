// A span per database statement (issue 41, TRACE_STORAGE_SPANS=1): postgres.js has no OpenTelemetry instrumentation
// (the contrib one is for `pg`), so the client every query module receives is wrapped here, at the one place it is
// made (./postgres.ts). A statement is a postgres.js Query, which runs when it is first awaited (its `handle`); the
// span starts there and ends when the query settles. A query made only to be a fragment of another is never run on
// its own and makes no span. Transactions (`begin`, `savepoint`) and reserved connections hand out clients wrapped
// the same way; BEGIN and COMMIT, which postgres.js sends itself, are not spans of their own.
import type { Context } from "@opentelemetry/api";
import {
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from "@opentelemetry/semantic-conventions";
import type postgres from "postgres";
import { endStoreSpanWithError, recordingParent, startStoreSpan, type StoreSpanAttributes } from "./store-spans.js";

/** Which database the spans name: its name (db.namespace) and, for a server over the network, where it is. */
export interface SqlSpanTarget {
  database: string;
  host?: string;
  port?: number;
}

/** What this module needs of a postgres.js Query: the template's text, and the run it starts when first awaited. */
interface RunnableQuery extends Promise<unknown> {
  strings: readonly string[];
  executed: boolean;
  handle(): Promise<void>;
}

const isQuery = (value: unknown): value is RunnableQuery =>
  value instanceof Promise &&
  typeof (value as Partial<RunnableQuery>).handle === "function" &&
  Array.isArray((value as Partial<RunnableQuery>).strings);

/** The span's name and text of each template: a call site's strings are one array for ever, so worked out once. */
const statements = new WeakMap<readonly string[], { operation: string; text: string }>();

/** The statement's verb (SELECT, INSERT, WITH, ...) and its text, each value (or fragment) written `?`. */
function statementOf(strings: readonly string[]): { operation: string; text: string } {
  let statement = statements.get(strings);
  if (!statement) {
    const text = strings.join("?").replace(/\s+/g, " ").trim();
    statement = { operation: /^[a-z]+/i.exec(text)?.[0]?.toUpperCase() ?? "SQL", text };
    statements.set(strings, statement);
  }
  return statement;
}

/** Makes `query` start a span under `parent` when it runs, ended when it settles. */
function traceWhenRun(query: RunnableQuery, parent: Context, target: SqlSpanTarget): RunnableQuery {
  const handle = query.handle;
  query.handle = function (this: RunnableQuery) {
    if (!this.executed) {
      const { operation, text } = statementOf(this.strings);
      const attributes: StoreSpanAttributes = {
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_NAMESPACE]: target.database,
        [ATTR_DB_OPERATION_NAME]: operation,
        [ATTR_DB_QUERY_TEXT]: text,
      };
      if (target.host) attributes[ATTR_SERVER_ADDRESS] = target.host;
      if (target.port) attributes[ATTR_SERVER_PORT] = target.port;
      const span = startStoreSpan(`${operation} ${target.database}`, attributes, parent);
      // The prototype's then: the query's own would run it again. Handled, so a failure is not reported twice.
      if (span)
        Promise.prototype.then.call(
          this,
          () => span.end(),
          (error: unknown) => endStoreSpanWithError(span, error),
        );
    }
    return handle.call(this);
  };
  return query;
}

/** A query traced when the caller's span records; any other value (a fragment helper, an identifier) as it is. */
function traced<T>(made: T, target: SqlSpanTarget): T {
  if (!isQuery(made)) return made;
  const parent = recordingParent();
  return parent ? (traceWhenRun(made, parent, target) as T) : made;
}

/** `fn` of begin or savepoint, handed a traced client instead of the transaction's own. */
const withTracedClient =
  (fn: (sql: postgres.TransactionSql) => unknown, target: SqlSpanTarget) => (sql: postgres.TransactionSql) =>
    fn(tracedSql(sql, target));

/**
 * `sql` with every statement it (or a transaction or reserved connection it hands out) runs in a span. Everything
 * else it offers is its own, untouched.
 */
export function tracedSql<T extends postgres.Sql | postgres.TransactionSql | postgres.ReservedSql>(
  sql: T,
  target: SqlSpanTarget,
): T {
  return new Proxy(sql, {
    apply: (client, self, args) => traced(Reflect.apply(client, self, args), target),
    get(client, property) {
      const value: unknown = Reflect.get(client, property, client);
      if (typeof value !== "function") return value;
      switch (property) {
        case "unsafe":
        case "file":
          return (...args: unknown[]) => traced(Reflect.apply(value, client, args), target);
        case "begin":
        case "savepoint":
          // (fn) or (options or name, fn): the callback is always the last argument.
          return (...args: unknown[]) => {
            const fn = args.at(-1);
            if (typeof fn === "function") args[args.length - 1] = withTracedClient(fn as never, target);
            return Reflect.apply(value, client, args);
          };
        case "reserve":
          return async () => tracedSql((await Reflect.apply(value, client, [])) as postgres.ReservedSql, target);
        default:
          return value;
      }
    },
  });
}
