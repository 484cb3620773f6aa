// The standard grpc.health.v1.Health service: load balancers and orchestrators ask it whether we serve.
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";

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
};

/**
 * Creates the health service. `initial` maps service names to statuses; by default only the whole server ("") is
 * registered, SERVING, as grpc-go's health server starts. Check on an unregistered name answers NOT_FOUND (per the
 * gRPC health spec); Watch on one answers SERVICE_UNKNOWN and keeps watching, since the service may appear later.
 */
export function createHealthService(
  initial: Readonly<Record<string, ServingStatus>> = { "": ServingStatus.SERVING },
): HealthService {
  const statuses = new Map<string, ServingStatus>(Object.entries(initial));
  const watchers = new Map<string, Set<(status: ServingStatus) => void>>();
  let shutDown = false;

  const publish = (service: string, status: ServingStatus | undefined): void => {
    if (status === undefined) statuses.delete(service);
    else statuses.set(service, status);
    const reported = status ?? ServingStatus.SERVICE_UNKNOWN;
    watchers.get(service)?.forEach((notify) => notify(reported));
  };

  const subscribe = (service: string, notify: (status: ServingStatus) => void): (() => void) => {
    let set = watchers.get(service);
    if (set === undefined) watchers.set(service, (set = new Set()));
    set.add(notify);
    return () => {
      set.delete(notify);
      if (set.size === 0) watchers.delete(service);
    };
  };

  const impl: ServiceImpl<typeof Health> = {
    async check(request) {
      const status = statuses.get(request.service);
      if (status === undefined) throw new ConnectError(`unknown service: ${request.service}`, Code.NotFound);
      return { status };
    },

    async list() {
      return { statuses: Object.fromEntries([...statuses].map(([name, status]) => [name, { status }])) };
    },

    async *watch(request, context) {
      const { signal } = context;
      // Only the latest status waits to be sent: a slow client skips intermediate ones, as grpc-go does.
      let pending: ServingStatus | undefined = statuses.get(request.service) ?? ServingStatus.SERVICE_UNKNOWN;
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
    getStatus: (service) => statuses.get(service),
    shutdown() {
      shutDown = true;
      for (const service of [...statuses.keys()]) publish(service, ServingStatus.NOT_SERVING);
    },
    resume() {
      shutDown = false;
      for (const service of [...statuses.keys()]) publish(service, ServingStatus.SERVING);
    },
  };
}
