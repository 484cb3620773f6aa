// What a role closes when it stops: each step named, closed in reverse order of opening (listeners first, finishing
// requests in flight; then queues and timers; the stores last), each bounded. A step that overruns its bound (a
// queue's stop waiting on a connection the network froze or a failover left dead) is logged by name and passed: the
// steps after it still run, and the stores' closes (postgres.js ends its connections after its own timeout) free
// what the stuck step waited on. Before, one such step held app.stop() for ever (CI, issue 37's failover test and
// the frozen-PostgreSQL test).
import type { Logger } from "./logger.js";

export interface Closers {
  /**
   * Registers the close of something just opened, under the name the log gives it; `boundMs` for a step whose own
   * bounds are longer than the default (a queue's graceful stop waits for its running work): cut short, it would go
   * on in the background after the stores closed under it, and keep the process alive.
   */
  add(step: string, close: () => Promise<void>, boundMs?: number): void;
  /** Closes every step in reverse order of registration, each bounded; once (a second call waits for the first). */
  closeAll(): Promise<void>;
}

export function createClosers(options: {
  logger: Logger;
  /**
   * How long one step may take before the next starts. Real time, not the injected clock: a test's manual clock
   * does not move while the test waits in stop(), and a bound that never fires is no bound (pg-boss bounds its own
   * stop the same way).
   */
  stepBoundMs: number;
}): Closers {
  const steps: Array<{ step: string; close: () => Promise<void>; boundMs: number }> = [];
  let closing: Promise<void> | undefined;
  const closeStep = async ({ step, close, boundMs }: (typeof steps)[number]) => {
    options.logger.debug("shutdown step", { step });
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<"overran">((resolve) => {
      timer = setTimeout(() => resolve("overran"), boundMs);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([close().then(() => "closed" as const), overran]);
      if (outcome === "overran") {
        options.logger.warn("shutdown step overran its bound: going on", { step, boundMs });
      }
    } catch (error) {
      options.logger.warn("shutdown step failed: going on", { step, error });
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    add(step, close, boundMs = options.stepBoundMs) {
      steps.push({ step, close, boundMs: Math.max(boundMs, options.stepBoundMs) });
    },
    closeAll() {
      closing ??= (async () => {
        for (const step of steps.reverse()) await closeStep(step);
      })();
      return closing;
    },
  };
}
