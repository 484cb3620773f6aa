// The embedded default: PGlite (real Postgres compiled to WASM) served over a local TCP socket, so `npm start`
// needs no database server and the same postgres.js client code runs against it as against a real server.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { Logger } from "../runtime/logger.js";

/** A running embedded Postgres: the URL postgres.js connects to, and how to stop it. */
export interface EmbeddedPostgres {
  url: string;
  /** Stops the socket server, then PGlite. End the client pool first. */
  close(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory that holds the data under `<dataDir>/pg`, or ":memory:" for a throwaway database. */
  dataDir: string;
  logger: Logger;
  /**
   * Connections the socket server accepts. Must equal the client's pool size: the server rejects any
   * connection beyond it. We always use 1, because PGlite runs one query at a time and extended-protocol
   * statements interleaved from several connections misbehave.
   */
  maxConnections?: number;
}

/** Starts PGlite under `<dataDir>/pg` (or in memory) and serves it on 127.0.0.1 on a free port. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const inMemory = options.dataDir === ":memory:";
  const dir = inMemory ? "memory://" : join(options.dataDir, "pg");
  const shown = inMemory ? ":memory:" : dir;
  options.logger.info(`embedded PostgreSQL (PGlite) starting under ${shown}; this takes a few seconds`, { dir: shown });
  if (!inMemory) await mkdir(dir, { recursive: true });
  const startedAt = performance.now();
  const db = await PGlite.create(dir);
  const server = new PGLiteSocketServer({
    db,
    host: "127.0.0.1",
    port: 0,
    maxConnections: options.maxConnections ?? 1,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  const address = server.getServerConn();
  options.logger.info("embedded PostgreSQL (PGlite) ready", { address, ms: Math.round(performance.now() - startedAt) });
  return {
    url: `postgres://postgres@${address}/postgres`,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
