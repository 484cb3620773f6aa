// The floor of one webhook delivery (issue 43), in a process of its own: read one outbox row (by its id), sign its
// body as the service signs (src/webhook/signing.ts: Standard Webhooks, HMAC-SHA256), POST it over a kept-alive
// connection to a local receiver (the benchmark's own, which verifies it), and mark the row delivered in one
// committed statement. CALLS deliveries, IN_FLIGHT at once, spread over the receivers (RECEIVERS: `url whsec_...`
// pairs separated by spaces), on a scratch table in the benchmark's database (DATABASE_URL), made and dropped
// here. Prints {rate, p50, p99, errors, cpu} as JSON, the cpu read as the benchmark reads a worker's: this
// process's tree and the PostgreSQL backends of its connections, per delivery.
import http from "node:http";
import postgres from "postgres";
import { eventBody } from "../../src/events/index.js";
import { secretPrefix, signedHeaders } from "../../src/webhook/signing.js";
import { startCpuMeter } from "./cpu-meter.js";
import { perCall } from "./measure.js";

const url = process.env["DATABASE_URL"];
if (!url) throw new Error("DATABASE_URL: the outbox to deliver from");
const calls = Number(process.env["CALLS"] ?? 1000);
const inFlight = Number(process.env["IN_FLIGHT"] ?? 8);
const words = (process.env["RECEIVERS"] ?? "").split(" ").filter(Boolean);
const receivers = Array.from({ length: words.length / 2 }, (_, index) => ({
  url: new URL(words[index * 2]!),
  key: Buffer.from(words[index * 2 + 1]!.slice(secretPrefix.length), "base64"),
}));
if (receivers.length === 0) throw new Error("RECEIVERS: at least one `url whsec_...` pair");
const database = decodeURIComponent(new URL(url).pathname.slice(1));
const sql = postgres(url, { max: inFlight, onnotice: () => {} });
const table = `bench_plain_outbox_${process.pid}`;
await sql`
  create table ${sql(table)} (id bigint generated always as identity primary key, event_id text not null unique,
    type text not null, data jsonb not null, occurred_at timestamptz not null, delivered_at timestamptz)`;
const total = calls + 100;
await sql`
  insert into ${sql(table)} (event_id, type, data, occurred_at)
  select 'evt_plain_' || g, 'online_order.created',
         jsonb_build_object('companyId', 0, 'order', jsonb_build_object('id', 'plain-' || g, 'status', 'PLAIN')), now()
  from generate_series(1, ${total}) g`;
await sql`analyze ${sql(table)}`;
const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });

const post = (target: URL, headers: Record<string, string>, body: string) =>
  new Promise<void>((resolve, reject) => {
    const request = http.request(target, {
      method: "POST",
      agent,
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
    });
    request.on("response", (response) => {
      response
        .resume()
        .on("end", () => (response.statusCode === 204 ? resolve() : reject(new Error(`${response.statusCode}`))));
    });
    request.on("error", reject);
    request.end(body);
  });

/** The first row no run has taken yet: each run takes `count` rows from it, every one exactly once. */
let next = 1;
async function run(count: number, latencies?: number[]): Promise<number> {
  // The run's own counter: a shared one would be pushed past `last` once by every loop that ends, and the next run
  // would start that many rows late and ask for rows that were never inserted (8 errors a run, one per loop).
  let cursor = next;
  const last = next + count;
  next = last;
  let errors = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let id = cursor++; id < last; id = cursor++) {
        const at = performance.now();
        try {
          const [row] = await sql<Array<{ event_id: string; type: string; data: unknown; occurred_at: Date }>>`
            select event_id, type, data, occurred_at from ${sql(table)} where id = ${id}`;
          const body = eventBody(row!.type, row!.occurred_at, row!.data);
          const receiver = receivers[id % receivers.length]!;
          await post(
            receiver.url,
            signedHeaders(row!.event_id, Math.floor(Date.now() / 1000), body, [receiver.key]),
            body,
          );
          await sql`update ${sql(table)} set delivered_at = ${new Date()} where id = ${id} and delivered_at is null`;
          latencies?.push(performance.now() - at);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  return errors;
}

await run(100); // warm-up: connections open, statements prepared
const latencies: number[] = [];
const meter = await startCpuMeter({ root: process.pid, database });
const started = performance.now();
const errors = await run(calls, latencies);
const rate = calls / ((performance.now() - started) / 1000);
const cpu = perCall(await meter.stop(), calls);
await sql`drop table ${sql(table)}`;
await sql.end();
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(JSON.stringify({ rate, p50: at(0.5), p99: at(0.99), errors, cpu }) + "\n");
