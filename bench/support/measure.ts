// What every benchmark prints: one line per figure with the ratio to its baseline and the p50 / p99 of both, and
// a non-zero exit when a run saw errors.
import { cpus, loadavg } from "node:os";
import type { Result } from "autocannon";

export interface Figure {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
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

/** "name  ratio  (rate p50 p99) ÷ baseline (rate p50 p99)". */
export function figureLine(name: string, measured: Figure, baselineName: string, baseline: Figure): string {
  const part = (figure: Figure) =>
    `${figure.rate.toFixed(0).padStart(6)}/s p50 ${figure.p50.toFixed(1).padStart(6)} ms p99 ${figure.p99.toFixed(1).padStart(6)} ms`;
  return `${name.padEnd(34)} ratio ${(measured.rate / baseline.rate).toFixed(2)}   ${part(measured)}   ÷ ${baselineName}: ${part(baseline)}`;
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
