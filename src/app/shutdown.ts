// How a role stops: its closers (named, bounded steps: src/runtime/closers.ts) and the stop that drains first.
import { sleep, type Clock } from "../runtime/clock.js";
import { createClosers, type Closers } from "../runtime/closers.js";
import type { Config } from "../config/config.js";
import type { AppOptions } from "./context.js";

/**
 * What a role closes when it stops, in the order it opened them (closed in reverse), each step bounded by the grace
 * plus the closing allowance that also bounds a process's whole shutdown (src/main.ts).
 */
export function closersFor(options: AppOptions): Closers {
  return createClosers({ logger: options.logger, stepBoundMs: options.config.shutdownGraceSeconds * 1000 + 5000 });
}

/**
 * The console mail step's bound: pg-boss's graceful stop waits up to the grace for the mails being sent, then fails
 * back what is left in the database, which on a slow or failing database takes more than the default step's 5 s.
 */
export function mailStopBoundMs(config: Config): number {
  return config.shutdownGraceSeconds * 1000 + 20_000;
}

/**
 * The stop of a running role, once however often called: not ready at once (readiness `shutting_down`, health
 * NOT_SERVING) while the listeners keep serving for `drainMs` on the clock, so a load balancer sees the failing
 * probe and stops sending before any connection is refused; then everything closes.
 */
export function stopOnce(options: {
  health: { shutdown(): void };
  shutdown: { started: boolean };
  closers: Closers;
  /** Background loops, told to stop when shutdown starts rather than at their closer's turn (issue 36). */
  loops?: Array<() => Promise<void>>;
  drainMs: number;
  clock: Clock;
}): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    options.shutdown.started = true;
    options.health.shutdown();
    // Not awaited: their closers (which wait for them) still run in order, and a stuck one must not hold the rest.
    for (const stopLoop of options.loops ?? []) stopLoop().catch(() => {});
    stopping ??= sleep(options.clock, options.drainMs).then(() => options.closers.closeAll());
    return stopping;
  };
}
