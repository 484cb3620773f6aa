// What every benchmark prints: one line per figure with the ratio to its baseline and the p50 / p99 of both (and,
// when both were metered, the CPU per call of each and the ratio of the baseline's to the measured one), and a
// non-zero exit when a run saw errors.
import { cpus, loadavg } from "node:os";
import type { Result } from "autocannon";
import { startCpuMeter, type CpuMeterOptions, type CpuSeconds } from "./cpu-meter.js";

/** CPU per call in microseconds, in total and by part (bench/support/cpu-meter.ts says what each part is). */
export interface CpuPerCall {
  total: number;
  service: number;
  postgres: number;
  redis: number;
}

export interface Figure {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  cpu?: CpuPerCall;
}

/** CPU seconds of a run spread over its `calls`, in µs per call. */
export function perCall(used: CpuSeconds, calls: number): CpuPerCall {
  const us = (seconds: number) => (seconds * 1e6) / Math.max(calls, 1);
  return {
    total: us(used.service + used.postgres + used.redis),
    service: us(used.service),
    postgres: us(used.postgres),
    redis: us(used.redis),
  };
}

/** Runs an autocannon `run` with the CPU meter on `target` around it: its Figure with the CPU per completed call. */
export async function metered(target: CpuMeterOptions, run: () => Promise<Result>): Promise<Figure> {
  const { result, used } = await meterOnce(target, run);
  return { ...fromAutocannon(result), cpu: perCall(used, result.requests.total) };
}

async function meterOnce(target: CpuMeterOptions, run: () => Promise<Result>): Promise<MeteredRun> {
  const meter = await startCpuMeter(target);
  const result = await run();
  return { result, used: await meter.stop() };
}

interface MeteredRun {
  result: Result;
  used: CpuSeconds;
}

/** One side of a comparison: the CPU meter's target, and a load of `duration` seconds on it. */
export interface Side {
  target: CpuMeterOptions;
  run: (duration: number) => Promise<Result>;
}

/** BENCH_TURNS: how many turns a call and its floor take (meteredInTurns); 1 measures each in one stretch. */
export const turns = Math.max(1, Math.floor(Number(process.env["BENCH_TURNS"] ?? 4)));

/**
 * A call and its floor (or any sides) metered in turns, after a warm-up of 2 s each: `turns` slices of `seconds` /
 * `turns`, side after side, each side's CPU and calls summed over its slices. A machine whose speed drifts over a run
 * (on a shared host, the same code's CPU per call moved by a third within minutes, docs/benchmarks.md) then weighs on
 * both sides alike, where one stretch each put the call and its floor tens of seconds apart. Rate: the side's calls
 * over its metered seconds; p50 and p99: the median of its slices'.
 */
export async function meteredInTurns(sides: readonly Side[], seconds: number): Promise<Figure[]> {
  for (const side of sides) await side.run(2);
  const runs: MeteredRun[][] = sides.map(() => []);
  for (let turn = 0; turn < turns; turn++)
    for (const [index, side] of sides.entries())
      runs[index]!.push(await meterOnce(side.target, () => side.run(seconds / turns)));
  return runs.map(combined);
}

function combined(runs: readonly MeteredRun[]): Figure {
  const sum = (of: (run: MeteredRun) => number) => runs.reduce((total, run) => total + of(run), 0);
  const median = (of: (run: MeteredRun) => number) => {
    const sorted = runs.map(of).sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const calls = sum((run) => run.result.requests.total);
  return {
    rate:
      calls /
      Math.max(
        sum((run) => run.result.duration),
        1e-9,
      ),
    p50: median((run) => run.result.latency.p50),
    p99: median((run) => run.result.latency.p99),
    errors: sum((run) => run.result.errors + run.result.non2xx + run.result.timeouts),
    cpu: perCall(
      {
        service: sum((run) => run.used.service),
        postgres: sum((run) => run.used.postgres),
        redis: sum((run) => run.used.redis),
      },
      calls,
    ),
  };
}

/** An autocannon result as a Figure (non-2xx answers count as errors). */
export function fromAutocannon(result: Result): Figure {
  return {
    rate: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

/**
 * "name  ratio  (rate p50 p99) ÷ baseline (rate p50 p99)", then, when both figures were metered,
 * "| CPU/call ratio  (µs: service, PostgreSQL, Redis) ÷ baseline (µs: ...)": the CPU ratio is the baseline's CPU per
 * call over the measured one (1.0 = at the floor, higher is better). The first part is unchanged for readers of it.
 */
export function figureLine(name: string, measured: Figure, baselineName: string, baseline: Figure): string {
  const part = (figure: Figure) =>
    `${figure.rate.toFixed(0).padStart(6)}/s p50 ${figure.p50.toFixed(1).padStart(6)} ms p99 ${figure.p99.toFixed(1).padStart(6)} ms`;
  const line = `${name.padEnd(34)} ratio ${(measured.rate / baseline.rate).toFixed(2)}   ${part(measured)}   ÷ ${baselineName}: ${part(baseline)}`;
  if (!measured.cpu || !baseline.cpu) return line;
  return `${line}   | CPU/call ratio ${(baseline.cpu.total / measured.cpu.total).toFixed(2)}   ${cpuPart(measured.cpu)}   ÷ ${cpuPart(baseline.cpu)}`;
}

/** "812 µs (process 640, PostgreSQL 120, Redis 52)": the server's process tree, then the stores. */
function cpuPart(cpu: CpuPerCall): string {
  const us = (n: number) => n.toFixed(0);
  return `${us(cpu.total).padStart(5)} µs (process ${us(cpu.service)}, PostgreSQL ${us(cpu.postgres)}, Redis ${us(cpu.redis)})`;
}

/** The machine, for the header line. */
export function machine(): string {
  const cores = cpus();
  return `Node ${process.version}, ${cores.length} x ${cores[0]?.model ?? "cpu"}, load ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`;
}

/** Fails the process when any figure saw errors (after printing everything). */
export function exitOnErrors(figures: Array<[string, Figure]>): void {
  const failed = figures.filter(([, figure]) => figure.errors > 0);
  for (const [name, figure] of failed) process.stderr.write(`${name}: ${figure.errors} errors\n`);
  if (failed.length > 0) process.exitCode = 1;
}
