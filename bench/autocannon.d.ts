// The part of autocannon's API the bench uses (the package ships no types).
declare module "autocannon" {
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    /** The count (for `requests`: completed requests). */
    total: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
    duration: number;
  }
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Rewrites the request before it is sent (per request). */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    /** Sees each answer (status, body), e.g. to keep a refresh token's successor. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    requests?: Request[];
    /** Requests per second across all connections (a moderate, steady load). */
    overallRate?: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
