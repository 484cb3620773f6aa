// `npm run bench:forms`: what a hostile form costs to parse, against an ordinary one of the same size, in the same
// run. Issue 27 found two bodies that froze the process: a key repeated 32,768 times (the list copied on every
// repeat, quadratic) and 64 KiB of `%FF&` (URLSearchParams' slow replacement path). Parsing is meant to be linear
// in the body's length whatever its bytes, which tests cannot check without timing it; this measures it.
//
// For each shape it prints the CPU per parse at 16 KiB and at 64 KiB and their ratio over the size ratio (1.0 is
// linear, 4.0 quadratic), the CPU per KiB against the ordinary body's at 64 KiB (near 1 is the goal), and
// p50/p99 of one parse. It parses with `parseForm` (no pair limit: collectParams sees every pair) and with
// `readBody` as the front does (past 1,024 pairs refused by a count before anything is decoded).
//
// Knobs: BENCH_CALLS (parses of each body, default 500).
import { Readable } from "node:stream";
import { parseForm, readBody } from "../src/front/request-body.js";

const calls = Number(process.env["BENCH_CALLS"] ?? 500);

/** `size` bytes of form: ordinary distinct pairs, one key repeated, or percent-escapes that are not UTF-8. */
const shapes: Record<string, (size: number) => string> = {
  "distinct keys": (size) => {
    let text = "";
    for (let i = 0; text.length < size; i++) text += `${text ? "&" : ""}field${i}=value${i}`;
    return text.slice(0, size);
  },
  "one key repeated": (size) => "a&".repeat(size / 2),
  "%FF& (not UTF-8)": (size) => "%FF&".repeat(size / 4),
  // Under the pair limit, so readBody decodes every pair: long values whose bytes are not UTF-8.
  "long values, not UTF-8": (size) => {
    const pairs = Math.floor(900 * (size / 65_536));
    const value = "%FF".repeat(Math.floor(size / pairs / 3) - 2);
    return Array.from({ length: pairs }, (_, n) => `f${n}=${value}`)
      .join("&")
      .slice(0, size);
  },
};

interface Run {
  cpuUs: number;
  p50: number;
  p99: number;
}

/** `calls` runs of `parse` (after a warm-up of a tenth): CPU per call (process.cpuUsage) and p50/p99 of each. */
async function measure(parse: () => unknown | Promise<unknown>): Promise<Run> {
  for (let n = 0; n < Math.max(50, calls / 2); n++) await parse();
  const latencies: number[] = [];
  const before = process.cpuUsage();
  for (let n = 0; n < calls; n++) {
    const started = performance.now();
    await parse();
    latencies.push(performance.now() - started);
  }
  const used = process.cpuUsage(before);
  latencies.sort((a, b) => a - b);
  return {
    cpuUs: (used.user + used.system) / calls,
    p50: latencies[Math.floor(calls * 0.5)]!,
    p99: latencies[Math.min(calls - 1, Math.floor(calls * 0.99))]!,
  };
}

const asRequest = (body: string) =>
  Object.assign(Readable.from([Buffer.from(body)]), {
    headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length) },
  });

const line = (name: string, run: Run) =>
  `${name.padEnd(44)} ${run.cpuUs.toFixed(1).padStart(9)} µs CPU  p50 ${run.p50.toFixed(3)} ms  p99 ${run.p99.toFixed(3)} ms`;

for (const [how, parse] of [
  ["parseForm", (body: string) => parseForm(body)],
  ["readBody (the front's path)", (body: string) => readBody(asRequest(body), 65_536)],
] as const) {
  console.log(`\n${how}, ${calls} parses of each body`);
  const ordinary = shapes["distinct keys"]!(65_536);
  const baseline = await measure(() => parse(ordinary));
  for (const [shape, make] of Object.entries(shapes)) {
    const [smallBody, largeBody] = [make(16_384), make(65_536)];
    const small = await measure(() => parse(smallBody));
    const large = shape === "distinct keys" ? baseline : await measure(() => parse(largeBody));
    console.log(line(`${shape}, 16 KiB`, small));
    console.log(line(`${shape}, 64 KiB`, large));
    console.log(
      `${"".padEnd(44)} growth ${(large.cpuUs / small.cpuUs / 4).toFixed(2)} (1.0 linear, 4.0 quadratic)  ` +
        `CPU ratio to distinct keys at 64 KiB ${(baseline.cpuUs / large.cpuUs).toFixed(2)}`,
    );
  }
}
