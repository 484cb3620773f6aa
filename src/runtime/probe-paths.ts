// The probes every listener answers before its routes (the front, the consent site, the console site): /healthz is
// liveness, /readyz readiness. One list, so each listener answers the same methods and names them in its 405's
// Allow (RFC 9110 section 15.5.6).

/** A probe's path and the methods it answers (HEAD: GET's head, without the body). */
export interface ProbePath {
  path: "/healthz" | "/readyz";
  methods: readonly string[];
}

export const probePaths: readonly ProbePath[] = [
  { path: "/healthz", methods: ["GET", "HEAD"] },
  { path: "/readyz", methods: ["GET", "HEAD"] },
];

/** Whether `path` is one of the probes. */
export const isProbePath = (path: string): boolean => probePaths.some((probe) => probe.path === path);
