/**
 * One autocannon run against a server child, summarised. Latency percentiles are computed here from
 * every 2xx response's time (autocannon's own histogram has 1 ms resolution, too coarse for sub-millisecond
 * routes); at a fixed rate autocannon's coordinated-omission-corrected p99 is reported as well.
 */
import autocannon from "autocannon";
import { USER_HEADER } from "./http-fixture.js";

export interface LoadOptions {
  url: string;
  /** @default 10 */
  connections?: number;
  /** @default 1 */
  pipelining?: number;
  durationSec: number;
  /** Each connection cycles through these in order (autocannon semantics). */
  requests: autocannon.Request[];
  /** Requests per second across all connections; unlimited when unset. */
  overallRate?: number;
  /** Seconds before a request counts as timed out. @default 10 */
  timeoutSec?: number;
}

export interface LoadResult {
  reqPerSec: number;
  /** Responses received, any status. */
  responses: number;
  p50Ms: number;
  p99Ms: number;
  /** autocannon's p99, corrected for coordinated omission when a rate is set (1 ms resolution). */
  p99CorrectedMs: number;
  /** Connection errors other than timeouts. */
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

/** Headers every request carries: the caller (owner check) and, for bodies, the JSON content type. */
export function headers(withBody: boolean): Record<string, string> {
  return withBody
    ? { [USER_HEADER]: "bench-user", "content-type": "application/json" }
    : { [USER_HEADER]: "bench-user" };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  let times = new Float64Array(1 << 16);
  let count = 0;
  let finish!: (error: Error | null, result: autocannon.Result) => void;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = (error, result) => (error ? reject(error) : resolve(result));
  });
  const instance = autocannon(
    {
      url: options.url,
      connections: options.connections ?? 10,
      pipelining: options.pipelining ?? 1,
      duration: options.durationSec,
      timeout: options.timeoutSec ?? 10,
      requests: options.requests,
      ...(options.overallRate !== undefined ? { overallRate: options.overallRate } : {}),
    },
    (error, result) => finish(error, result),
  );
  instance.on("response", (_client, status, _bytes, responseTime) => {
    if (status < 200 || status >= 300) return;
    if (count === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[count++] = responseTime;
  });
  const result = await done;
  const sorted = times.subarray(0, count).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
    statusCodes[code] = stat.count ?? 0;
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    reqPerSec: responses / result.duration,
    responses,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    p99CorrectedMs: result.latency.p99,
    errors: result.errors - result.timeouts,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
  };
}
