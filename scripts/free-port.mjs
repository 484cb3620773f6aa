// A free TCP port on 127.0.0.1 for a server whose own URL must be known before it starts (BASE_URL, AUTH_URL).
// It is picked below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default): a port
// the kernel handed out by listen(0) and that we closed again is also where it picks the next outgoing
// connection's source port, so on a busy machine (a suite talking to PostgreSQL and Redis) another socket took it
// before the server bound it (EADDRINUSE in CI). Below that range only another listener can take it, and the
// random pick makes two test files landing on one port unlikely; a collision still fails loudly, never silently.
import { createServer } from "node:net";

const lowest = 20_000;
const highest = 32_767;

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function isFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A port in 20000-32767 nothing listens on now. */
export async function freePort() {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${lowest}-${highest} after 100 tries`);
}
