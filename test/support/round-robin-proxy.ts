// The load balancer of the topology test: a small HTTP proxy that sends each request to the next healthy backend in
// turn, appends the peer's address to X-Forwarded-For (the fronts trust it through TRUST_PROXY), and keeps a record
// of which backend answered what. A backend is healthy while its GET /readyz answers 200, polled as a real load
// balancer does (out after `fall` failures in a row, back after one success), so a draining front (readyz 503
// during SHUTDOWN_DRAIN_SECONDS) stops receiving new requests.
import http from "node:http";

export interface Backend {
  name: string;
  /** Origin, e.g. http://10.77.120.11:8080 */
  origin: string;
}

export interface Routed {
  backend: string;
  method: string;
  path: string;
  status: number;
}

export interface RoundRobinProxy {
  url: string;
  /** Every request so far, in the order they arrived, with the backend that got it ("none" when none was healthy). */
  routed: Routed[];
  /** Resolves once every backend has answered its readiness probe with 200. */
  allHealthy(timeoutMs?: number): Promise<void>;
  healthy(name: string): boolean;
  close(): Promise<void>;
}

/** How often the backends' /readyz are asked. */
const probeIntervalMs = 100;
/**
 * Failed probes in a row that take a healthy backend out, as a real balancer's "fall" (HAProxy's default is 3): one
 * probe that timed out on a loaded machine took a healthy front out while the other was restarting, and the
 * balancer had no backend. A draining front still leaves within half a second, well inside its drain.
 */
const fall = 3;

function peerAddress(request: http.IncomingMessage): string {
  const address = request.socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}

/** Starts the proxy on `address` (a free port) in front of `backends`. */
export async function startRoundRobinProxy(address: string, backends: Backend[]): Promise<RoundRobinProxy> {
  const health = new Map<string, boolean>(backends.map((backend) => [backend.name, false]));
  const failedInARow = new Map<string, number>(backends.map((backend) => [backend.name, fall]));
  const routed: Routed[] = [];
  let next = 0;
  let closing = false;

  const probe = (backend: Backend) =>
    new Promise<boolean>((resolve) => {
      const request = http.get(`${backend.origin}/readyz`, { agent: false, timeout: 2_000 }, (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      });
      request.on("timeout", () => request.destroy());
      request.on("error", () => resolve(false));
    });
  const probing = (async () => {
    while (!closing) {
      const answers = await Promise.all(backends.map(probe));
      for (const [index, backend] of backends.entries()) {
        const failed = answers[index] ? 0 : failedInARow.get(backend.name)! + 1;
        failedInARow.set(backend.name, failed);
        health.set(backend.name, failed < fall);
      }
      await new Promise((resolve) => setTimeout(resolve, probeIntervalMs));
    }
  })();

  const pick = (): Backend | undefined => {
    for (let tried = 0; tried < backends.length; tried++) {
      const backend = backends[next++ % backends.length]!;
      if (health.get(backend.name)) return backend;
    }
    return undefined;
  };

  const server = http.createServer((request, response) => {
    const backend = pick();
    const record: Routed = {
      backend: backend?.name ?? "none",
      method: request.method ?? "",
      path: request.url ?? "",
      status: 0,
    };
    routed.push(record);
    if (!backend) {
      record.status = 503;
      response.writeHead(503, { "content-type": "text/plain" }).end("no healthy backend\n");
      return;
    }
    const forwardedFor = [request.headers["x-forwarded-for"], peerAddress(request)].filter(Boolean).join(", ");
    // No keep-alive to the backends: a connection is one request, so a stopping front has no idle ones of ours.
    const upstream = http.request(`${backend.origin}${request.url}`, {
      method: request.method,
      headers: { ...request.headers, "x-forwarded-for": forwardedFor, connection: "close" },
      agent: false,
    });
    upstream.on("response", (answer) => {
      record.status = answer.statusCode ?? 0;
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on("error", (error) => {
      record.status = 502;
      if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
      response.end(`upstream failed: ${error.message}\n`);
    });
    // Headers go out at once, the body as it arrives: a slow client's request is in flight at the backend.
    upstream.flushHeaders();
    request.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, address, resolve);
  });
  const { port } = server.address() as { port: number };

  return {
    url: `http://${address}:${port}`,
    routed,
    healthy: (name) => health.get(name) === true,
    async allHealthy(timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      while (![...health.values()].every(Boolean)) {
        if (Date.now() > deadline) throw new Error(`backends not ready: ${JSON.stringify([...health])}`);
        await new Promise((resolve) => setTimeout(resolve, probeIntervalMs));
      }
    },
    async close() {
      closing = true;
      await probing;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
