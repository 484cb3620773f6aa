// What a refresh must do besides its signature: rotate the token durably. Single-row conditional UPDATEs, each its
// own committed transaction (synchronous_commit as the server has it), IN_FLIGHT connections at once, for SECONDS,
// on a scratch table of the benchmark's database (DATABASE_URL); prints {rate, p50, p99, errors, cpu} as JSON, the
// cpu read as the benchmark reads the service's: this process and the PostgreSQL backends of its connections.
import postgres from "postgres";
import { startCpuMeter } from "./cpu-meter.js";
import { perCall } from "./measure.js";

const seconds = Number(process.argv[2] ?? 5);
const inFlight = Number(process.argv[3] ?? 32);
const url = process.env["DATABASE_URL"];
if (!url) throw new Error("DATABASE_URL: the database to write in");
const database = decodeURIComponent(new URL(url).pathname.slice(1));
const sql = postgres(url, { max: inFlight, onnotice: () => {} });

await sql`create table if not exists bench_durable_writes (id int primary key, n bigint not null, at timestamptz)`;
await sql`insert into bench_durable_writes (id, n) select g, 0 from generate_series(1, ${inFlight}) g on conflict do nothing`;

async function run(durationMs: number, latencies?: number[]): Promise<number> {
  const end = performance.now() + durationMs;
  let done = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, slot) => {
      while (performance.now() < end) {
        const at = performance.now();
        const [row] = await sql`
          update bench_durable_writes set n = n + 1, at = ${new Date()} where id = ${slot + 1} and n >= 0 returning n`;
        if (!row) throw new Error("no row updated");
        latencies?.push(performance.now() - at);
        done += 1;
      }
    }),
  );
  return done;
}

await run(1000); // warm-up: every connection open, every statement prepared
const latencies: number[] = [];
const meter = await startCpuMeter({ root: process.pid, database });
const started = performance.now();
const done = await run(seconds * 1000, latencies);
const rate = done / ((performance.now() - started) / 1000);
const cpu = perCall(await meter.stop(), done);
await sql`drop table bench_durable_writes`;
await sql.end();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(JSON.stringify({ rate, p50: at(0.5), p99: at(0.99), errors: 0, cpu }) + "\n");
