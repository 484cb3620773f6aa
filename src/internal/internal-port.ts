// The internal port as a role starts it: its credentials (on a brand-new embedded start, an operator credential
// made into DATA_DIR, with a log line saying how to use it; in development mode, a staff credential there for
// `npm run staff`), its TLS files, and the server on GRPC_HOST:GRPC_PORT;
// for a data role, the region hop's grpc-js server too (REGION_GRPC_PORT), with the same credentials and TLS.
import { readFile } from "node:fs/promises";
import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { Config } from "../config/config.js";
import type { Clock } from "../runtime/clock.js";
import type { IdSource } from "../runtime/ids.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import { createInternalServer, type InternalServer } from "./internal-server.js";
import { createRegionGrpcServer } from "./region-grpc-server.js";
import {
  ensureEmbeddedOperatorCredential,
  ensureLocalStaffCredential,
  loadServiceCredentials,
} from "./service-credentials.js";

export interface InternalPortOptions {
  config: Config;
  /** Whether this process runs on the embedded database (a brand-new one gets an operator credential). */
  embedded: boolean;
  /** Development mode's staff credential in DATA_DIR (config.internal.localStaff; the console's process only). */
  localStaff?: boolean;
  routes: (router: ConnectRouter) => void;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  metrics?: Metrics;
  /** A data role's region hop: the service fronts call and its implementation, served on a grpc-js port of its own. */
  hop?: { service: DescService; impl: object };
}

export interface InternalPort extends InternalServer {
  /** The region hop's grpc-js server, when `hop` was given (listen on REGION_GRPC_PORT). */
  hop: InternalServer | undefined;
}

export async function createInternalPort(options: InternalPortOptions): Promise<InternalPort> {
  const { config, logger } = options;
  const { credentialsFile, credentialsFileIsDefault, tls } = config.internal;
  const made =
    options.embedded && credentialsFileIsDefault
      ? await ensureEmbeddedOperatorCredential({ credentialsFile, dataDir: config.dataDir })
      : undefined;
  const staffMade =
    options.localStaff && config.internal.localStaff
      ? await ensureLocalStaffCredential({ credentialsFile, dataDir: config.dataDir })
      : undefined;
  if (staffMade)
    logger.info("internal port: development mode keeps a staff credential for `npm run staff`", {
      credentialFile: staffMade,
      credentialsFile,
    });
  const credentials = await loadServiceCredentials({ file: credentialsFile, clock: options.clock, logger });
  const tlsFiles = tls ? { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) } : undefined;
  const server = createInternalServer({
    routes: options.routes,
    credentials,
    tls: tlsFiles,
    logger,
    ids: options.ids,
    metrics: options.metrics,
  });
  const hop = options.hop
    ? createRegionGrpcServer({
        ...options.hop,
        credentials,
        tls: tlsFiles,
        logger,
        ids: options.ids,
        metrics: options.metrics,
      })
    : undefined;
  return {
    ...server,
    hop,
    async listen(port, host) {
      const address = await server.listen(port, host);
      if (made) {
        const flags = tls ? "--protocol grpc" : "--protocol grpc --http2-prior-knowledge";
        const origin = `${tls ? "https" : "http"}://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
        logger.warn("internal port: generated an operator credential for this embedded start", {
          credentialFile: made,
          credentialsFile,
          try: `buf curl ${flags} -H "X-Service-Credential: $(cat ${made})" ${origin}/partnerapi.v1.TokenService/GetJwks`,
        });
      }
      return address;
    },
  };
}
