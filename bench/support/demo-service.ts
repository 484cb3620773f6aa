// The service as `npm start -- --demo` runs it, on free ports, every throttle out of the way, with the demo world
// (demo.json) read back: what each benchmark starts from. A restart keeps the data directory (and so the embedded
// database, the key-encryption key and the demo world).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startService, type RunningService } from "./service.js";
import { unthrottled } from "./unthrottled.js";

export interface DemoLogin {
  email: string;
  password: string;
}
export interface DemoPair {
  clientId: string;
  clientSecret: string;
}
/** The parts of demo.json the benchmarks use (src/demo/provision-demo.ts has the whole contract). */
export interface DemoWorld {
  redirectUri: string;
  apps: { full: { sandbox: DemoPair; production: DemoPair }; onlineOrder: { sandbox: DemoPair; production: DemoPair } };
  merchants: {
    sandbox: Array<{ companyId: number }>;
    live: Array<{ companyId: number; region: string; owner: DemoLogin }>;
  };
}

export interface DemoService {
  service: RunningService;
  demo: DemoWorld;
  front: string;
  auth: string;
  dataDir: string;
  env: Record<string, string>;
  /** Stops the service and starts it again on the same ports and data (e.g. after seeding its databases). */
  restart(): Promise<void>;
  /** Stops the service and removes its data directory. */
  stop(): Promise<void>;
}

/** BENCH_SERVICE_ENV: more of the service's settings, `KEY=value` separated by spaces (e.g. `LOG_LEVEL=warn`). */
function serviceEnvKnob(): Record<string, string> {
  const pairs = (process.env["BENCH_SERVICE_ENV"] ?? "").split(" ").filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
}

export async function startDemoService(extraEnv: Record<string, string> = {}): Promise<DemoService> {
  const dataDir = await mkdtemp(join(tmpdir(), "partner-api-bench-"));
  // Every listener on a free port: two benchmarks (or two services of one) must never meet on a default one.
  const [port, authPort, consolePort, grpcPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = {
    HOST: "127.0.0.1",
    PORT: String(port),
    AUTH_PORT: String(authPort),
    CONSOLE_PORT: String(consolePort),
    GRPC_PORT: String(grpcPort),
    DATA_DIR: dataDir,
    ...(process.env["DATABASE_URL"] ? { DATABASE_URL: process.env["DATABASE_URL"] } : {}),
    ...(process.env["REDIS_URL"] ? { REDIS_URL: process.env["REDIS_URL"] } : {}),
    // A database used before keeps signing keys sealed under that run's key-encryption key: pass it on.
    ...(process.env["TOKEN_KEY_ENCRYPTION_KEY"]
      ? { TOKEN_KEY_ENCRYPTION_KEY: process.env["TOKEN_KEY_ENCRYPTION_KEY"] }
      : {}),
    ...unthrottled(),
    ...serviceEnvKnob(),
    ...extraEnv,
  };
  let service = await startService({ args: ["--demo"], dataDir, env });
  const demo = JSON.parse(await readFile(join(dataDir, "demo.json"), "utf8")) as DemoWorld;
  const running: DemoService = {
    service,
    demo,
    front: String(service.ready["front"]),
    auth: String(service.ready["consent"]),
    dataDir,
    env,
    async restart() {
      await service.stop();
      service = await startService({ args: [], dataDir, env });
      running.service = service;
    },
    async stop() {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return running;
}
