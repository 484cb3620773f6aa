// A redis-server of a test's own on a port of its choosing (never the machine's shared one), for suites that stop
// and restart Redis or need one beside TEST_REDIS_URL: started without persistence, ready once it accepts a
// connection, stopped with the signal the test chooses.
import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";

/**
 * Starts redis-server on `port` (with `extra` arguments: --replicaof ...) and resolves once it accepts connections;
 * undefined when there is none to start. On `host` (127.0.0.1 unless given: bench:chaos binds the bridge address its
 * network namespaces reach).
 */
export async function startPrivateRedis(
  port: number,
  extra: string[] = [],
  host = "127.0.0.1",
): Promise<ChildProcess | undefined> {
  const server = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      host,
      // Off the loopback, Redis without a password refuses every client unless told this is a private network.
      ...(host === "127.0.0.1" ? [] : ["--protected-mode", "no"]),
      "--save",
      "",
      "--appendonly",
      "no",
      ...extra,
    ],
    { stdio: "ignore" },
  );
  const started = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    const probe = (attempt: number) => {
      const socket = connect(port, host);
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => (attempt > 100 ? resolve(false) : setTimeout(() => probe(attempt + 1), 50)));
    };
    probe(0);
  });
  return started ? server : undefined;
}

/** Sends `signal` to a child process and resolves once it has exited (at once when it already has). */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}
