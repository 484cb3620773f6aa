// A free TCP port on 127.0.0.1 for a server whose own URL must be known before it starts (BASE_URL, AUTH_URL).
// It is picked below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default): a port
// the kernel handed out by listen(0) and that we closed again is also where it picks the next outgoing
// connection's source port, so on a busy machine (a suite talking to PostgreSQL and Redis) another socket took it
// before the server bound it (EADDRINUSE in CI). Below that range only another listener can take it, and the
// random pick makes two test files landing on one port unlikely. Unlikely was not enough: a test file picks three
// ports and binds them seconds later (after its database is made), and with eight files starting side by side two
// of them once picked the same port (EADDRINUSE in CI). So a pick is also claimed, for the life of the process, by
// a file created exclusively in a directory every process on the machine shares; a claim whose process is gone is
// taken over.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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

/** Where claims live: a file per port, holding the claiming process's pid. */
const claimsDir = join(tmpdir(), "partner-api-ports");
/** This process's claims, released when it exits. */
const claimed = new Set();

function releaseClaims() {
  for (const port of claimed) {
    try {
      unlinkSync(join(claimsDir, String(port)));
    } catch {
      // already gone
    }
  }
  claimed.clear();
}

/** Whether a process with this pid runs (a claim of a process that has gone is stale). */
function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** Claims `port` for this process: true when no living process holds it (created with O_EXCL, so one wins). */
function claim(port) {
  const path = join(claimsDir, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx" });
      if (claimed.size === 0) process.once("exit", releaseClaims);
      claimed.add(port);
      return true;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      let holder = 0;
      try {
        holder = Number(readFileSync(path, "utf8"));
      } catch {
        // removed meanwhile: try again
      }
      if (holder === process.pid || alive(holder)) return false;
      try {
        unlinkSync(path); // a stale claim; two takers race on the exclusive create that follows
      } catch {
        // another taker removed it first
      }
    }
  }
  return false;
}

/** A port in 20000-32767 nothing listens on now and no other process on this machine has been given. */
export async function freePort() {
  mkdirSync(claimsDir, { recursive: true });
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = lowest + Math.floor(Math.random() * (highest - lowest + 1));
    if (claimed.has(port) || !claim(port)) continue;
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port in ${lowest}-${highest} after 100 tries`);
}
