// The standard grpc.health.v1.Health service: load balancers and orchestrators ask it whether we serve.
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { type Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import { sleep, type Clock } from "../runtime/clock.js";

export { ServingStatus };

/** The health service and the handles the server uses to report its state through it. */
export type HealthService = {
  /** The implementation to register: `router.service(Health, health.impl)`. */
  readonly impl: ServiceImpl<typeof Health>;
  /** Sets the status of `service` ("" is the whole server); Watch streams see the change. Ignored after shutdown. */
  setStatus(service: string, status: ServingStatus): void;
  /** Forgets `service`: Check answers NOT_FOUND again, Watch streams see SERVICE_UNKNOWN. */
  clearStatus(service: string): void;
  /** The current status of `service`, undefined when it was never registered. */
  getStatus(service: string): ServingStatus | undefined;
  /** Marks every service NOT_SERVING and ignores later updates, so draining clients move elsewhere. */
  shutdown(): void;
  /** Undoes shutdown: every service SERVING again, updates accepted. */
  resume(): void;
  /**
   * Makes every registered service follow `readiness` (the same answer as /readyz): NOT_SERVING while it is not
   * ready, its own status again once it is. Check and List ask readiness afresh; a poll every `intervalMs` on
   * `clock` keeps Watch streams current. The poll ends at shutdown.
   */
  followReadiness(readiness: () => Promise<{ ready: boolean }>, options: { clock: Clock; intervalMs: number }): void;
};

/**
 * Creates the health service. `initial` maps service names to statuses; by default only the whole server ("") is
 * registered, SERVING, as grpc-go's health server starts. Check on an unregistered name answers NOT_FOUND (per the
 * gRPC health spec); Watch on one answers SERVICE_UNKNOWN and keeps watching, since the service may appear later.
 */
export function createHealthService(
  initial: Readonly<Record<string, ServingStatus>> = { "": ServingStatus.SERVING },
): HealthService {
  // What each service was set to; what is reported is that, unless the process is not ready (then NOT_SERVING).
  const statuses = new Map<string, ServingStatus>(Object.entries(initial));
  const watchers = new Map<string, Set<(status: ServingStatus) => void>>();
  let shutDown = false;
  let ready = true;
  let poll:
    | { readiness: () => Promise<{ ready: boolean }>; clock: Clock; intervalMs: number; stop: AbortController }
    | undefined;

  const reported = (service: string): ServingStatus | undefined => {
    const status = statuses.get(service);
    return status !== undefined && !ready ? ServingStatus.NOT_SERVING : status;
  };
  const notify = (service: string): void => {
    const status = reported(service) ?? ServingStatus.SERVICE_UNKNOWN;
    for (const send of watchers.get(service) ?? []) send(status);
  };
  const publish = (service: string, status: ServingStatus | undefined): void => {
    if (status === undefined) statuses.delete(service);
    else statuses.set(service, status);
    notify(service);
  };
  const setReady = (now: boolean): void => {
    if (now === ready) return;
    ready = now;
    for (const service of watchers.keys()) notify(service);
  };
  // Concurrent Checks share one readiness evaluation instead of pinging the databases once each.
  let evaluating: Promise<void> | undefined;
  const evaluate = (): Promise<void> => {
    if (!poll) return Promise.resolve();
    const { readiness } = poll;
    evaluating ??= readiness()
      .then(
        (answer) => {
          if (!shutDown) setReady(answer.ready);
        },
        () => {
          if (!shutDown) setReady(false);
        },
      )
      .finally(() => {
        evaluating = undefined;
      });
    return evaluating;
  };
  const startPolling = (): void => {
    if (!poll || shutDown) return;
    const current = poll;
    current.stop = new AbortController();
    const { signal } = current.stop;
    void (async () => {
      while (!signal.aborted) {
        await sleep(current.clock, current.intervalMs, signal);
        if (!signal.aborted) await evaluate();
      }
    })();
  };
  const refresh = (): Promise<void> => (shutDown ? Promise.resolve() : evaluate());

  const subscribe = (service: string, notify: (status: ServingStatus) => void): (() => void) => {
    let set = watchers.get(service);
    if (set === undefined) {
      set = new Set();
      watchers.set(service, set);
    }
    set.add(notify);
    return () => {
      set.delete(notify);
      if (set.size === 0) watchers.delete(service);
    };
  };

  const impl: ServiceImpl<typeof Health> = {
    async check(request) {
      await refresh();
      const status = reported(request.service);
      if (status === undefined) throw new ConnectError(`unknown service: ${request.service}`, Code.NotFound);
      return { status };
    },

    async list() {
      await refresh();
      return { statuses: Object.fromEntries([...statuses.keys()].map((name) => [name, { status: reported(name)! }])) };
    },

    async *watch(request, context) {
      const { signal } = context;
      // Only the latest status waits to be sent: a slow client skips intermediate ones, as grpc-go does.
      let pending: ServingStatus | undefined = reported(request.service) ?? ServingStatus.SERVICE_UNKNOWN;
      let wake: (() => void) | undefined;
      const unsubscribe = subscribe(request.service, (status) => {
        pending = status;
        wake?.();
      });
      const onAbort = (): void => wake?.();
      signal.addEventListener("abort", onAbort);
      let last: ServingStatus | undefined;
      try {
        while (!signal.aborted) {
          if (pending !== undefined) {
            const status: ServingStatus = pending;
            pending = undefined;
            if (status !== last) {
              last = status;
              yield { status };
            }
            continue;
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        unsubscribe();
        signal.removeEventListener("abort", onAbort);
      }
    },
  };

  return {
    impl,
    setStatus(service, status) {
      if (!shutDown) publish(service, status);
    },
    clearStatus(service) {
      if (!shutDown) publish(service, undefined);
    },
    getStatus: (service) => reported(service),
    shutdown() {
      shutDown = true;
      poll?.stop.abort();
      for (const service of [...statuses.keys()]) publish(service, ServingStatus.NOT_SERVING);
    },
    resume() {
      shutDown = false;
      for (const service of [...statuses.keys()]) publish(service, ServingStatus.SERVING);
      startPolling();
    },
    followReadiness(readiness, { clock, intervalMs }) {
      poll?.stop.abort();
      poll = { readiness, clock, intervalMs, stop: new AbortController() };
      startPolling();
    },
  };
}
