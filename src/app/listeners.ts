// The listeners of the all-roles process, opened in turn, each closed with the role.
import type { AddressInfo } from "node:net";
import type { Config } from "../config/config.js";
import type { Closers } from "../runtime/closers.js";
import { listenForMetrics, type Metrics } from "../runtime/metrics.js";
import type { AppContext } from "./context.js";
import type { DeveloperSide } from "./developer-side.js";
import type { buildInternalPort } from "./internal-port.js";
import type { buildFront, buildConsentSite, buildConsoleSite } from "./sites.js";

/**
 * Each listener in turn: the internal port (its port then forbidden to webhooks), the front (its loopback URL then
 * known to the console's first call), the consent site, metrics when configured, the console site.
 */
export async function listenAll(
  context: AppContext,
  servers: {
    internal: Awaited<ReturnType<typeof buildInternalPort>>;
    front: Awaited<ReturnType<typeof buildFront>>;
    consent: ReturnType<typeof buildConsentSite>;
    consoleSite: ReturnType<typeof buildConsoleSite>;
  },
  developer: DeveloperSide,
  frontUrl: { value?: string },
  closers: Closers,
) {
  const { config, metrics } = context;
  const { internal, front, consent, consoleSite } = servers;
  const grace = config.shutdownGraceSeconds * 1000;
  const grpc = await internal.port.listen(config.listen.grpcPort, config.listen.grpcHost);
  developer.forbiddenPorts.add(grpc.port);
  closers.add("internal port", () => internal.port.close(grace));
  const frontAddress = await front.listen(config.listen.port, config.listen.host);
  closers.add("front", () => front.close(grace));
  frontUrl.value = `http://${loopbackOf(frontAddress)}/`;
  const consentAddress = await consent.listen(config.listen.authPort, config.listen.host);
  closers.add("consent site", () => consent.close(grace));
  const metricsAddress = await listenForMetricsIfAsked(config, metrics, closers);
  const consoleAddress = await consoleSite.listen(config.listen.consolePort, config.listen.host);
  closers.add("console site", () => consoleSite.close(grace));
  return {
    front: frontAddress,
    consent: consentAddress,
    console: consoleAddress,
    grpc,
    metricsAddress,
  };
}

/** GET /metrics on a listener of its own when METRICS_PORT is set; its address, or undefined. */
export async function listenForMetricsIfAsked(config: Config, metrics: Metrics, closers: Closers) {
  if (config.metrics.port === undefined) return undefined;
  const listener = await listenForMetrics(metrics, config.metrics.port, config.metrics.host);
  closers.add("metrics listener", () => listener.close(config.shutdownGraceSeconds * 1000));
  return listener.address;
}

/** Where this process reaches a listener of its own: loopback when it listens on every address. */
function loopbackOf(address: AddressInfo): string {
  const host = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return host.includes(":") ? `[${host}]:${address.port}` : `${host}:${address.port}`;
}
