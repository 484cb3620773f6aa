// The ceiling of minting on this machine: raw RS256 signatures (RSA-2048, crypto.sign with a callback, so on the
// thread pool) with IN_FLIGHT of them outstanding, for SECONDS; prints {rate, p50, p99, errors} as JSON. Run in its
// own process by the mint benchmark, with the thread pool sized as `npm start` sizes it. `cpu`: this process's CPU
// (all its threads, from /proc as the benchmark reads the service's) over the measured run, in µs per signature.
import { generateKeyPairSync, sign } from "node:crypto";
import { processSeconds } from "./cpu-meter.js";
import { perCall } from "./measure.js";

const seconds = Number(process.argv[2] ?? 5);
const inFlight = Number(process.argv[3] ?? 16);
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
// A payload the size of an access token's signing input.
const input = Buffer.from("e".repeat(420));

const signOnce = () =>
  new Promise<void>((resolve, reject) =>
    sign("sha256", input, privateKey, (error) => (error ? reject(error) : resolve())),
  );

async function run(durationMs: number, latencies?: number[]): Promise<number> {
  const end = performance.now() + durationMs;
  let done = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const at = performance.now();
        await signOnce();
        latencies?.push(performance.now() - at);
        done += 1;
      }
    }),
  );
  return done;
}

await run(1000); // warm-up
const latencies: number[] = [];
const cpuBefore = await processSeconds(process.pid);
const started = performance.now();
const done = await run(seconds * 1000, latencies);
const rate = done / ((performance.now() - started) / 1000);
const cpu = perCall({ service: (await processSeconds(process.pid)) - cpuBefore, postgres: 0, redis: 0 }, done);
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(JSON.stringify({ rate, p50: at(0.5), p99: at(0.99), errors: 0, cpu }) + "\n");
