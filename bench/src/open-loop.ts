/**
 * An open-loop, constant-rate HTTP load generator for latency measurements.
 *
 * autocannon's `overallRate` splits the rate over its connections and lets each one send its whole
 * second's quota back to back when a per-second counter resets: "1000 requests/s" is one burst a
 * second, and its p99 is queueing inside the burst. Here requests are evenly spaced (one every
 * `1000 / rate` ms, due times counted from one monotonic start, so a late timer makes the next
 * requests go out at once rather than pushing the whole schedule back), sent on a pool of keep-alive
 * connections (`http.Agent`), and timed with `performance.now()`:
 *
 * - service latency: from the request being flushed to the socket (`finish`) to the end of the
 *   response;
 * - corrected latency: from the time the request was due by the schedule to the end of the response,
 *   which also counts any wait for the timer or for a free connection (coordinated omission).
 *
 * Percentiles come from Node's own HDR histogram (`perf_hooks.createHistogram`, nanoseconds).
 */
import { Agent, request } from "node:http";
import { createHistogram, type RecordableHistogram } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

export interface OpenLoopOptions {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body: string;
  /** Requests per second, evenly spaced. */
  rate: number;
  /** Seconds measured. */
  seconds: number;
  /**
   * Seconds of the same load sent first and not measured (errors still count), so that the measured
   * part starts in the steady state this load leads to, without a gap. @default 0
   */
  warmupSeconds?: number;
  /** Keep-alive connections the requests share. @default 32 */
  connections?: number;
  /** A request without a complete response after this long counts as an error. @default 10_000 */
  timeoutMs?: number;
}

export interface OpenLoopResult {
  /** Requests sent, warm-up included (every one is answered, failed or timed out when this returns). */
  sent: number;
  /** 2xx responses to measured requests. */
  responses: number;
  /** 2xx responses to measured requests per measured second. */
  rps: number;
  /** Non-2xx answers, warm-up included. */
  non2xx: number;
  /** Connection errors and timeouts, warm-up included. */
  errors: number;
  /** Service latency (from the request written to the response's end), ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Latency from the request's scheduled time (coordinated-omission corrected), ms. */
  correctedP50Ms: number;
  correctedP99Ms: number;
  /** How late the timer sent requests, behind their due time: p99, ms. */
  sendLagP99Ms: number;
}

const ms = (histogram: RecordableHistogram, percentile: number) =>
  histogram.count === 0 ? 0 : histogram.percentile(percentile) / 1e6;

const toNs = (millis: number) => Math.max(1, Math.round(millis * 1e6));

/** Sends `rate` requests a second for `seconds`, then waits for the last answers. */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { rate, seconds } = options;
  const unmeasured = Math.round(rate * (options.warmupSeconds ?? 0));
  const total = unmeasured + Math.round(rate * seconds);
  const intervalMs = 1000 / rate;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections ?? 32 });
  const target = new URL(options.url);
  const body = Buffer.from(options.body);
  const headers = { ...options.headers, "content-length": String(body.length) };
  const service = createHistogram();
  const corrected = createHistogram();
  const lag = createHistogram();
  let responses = 0;
  let non2xx = 0;
  let errors = 0;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  const settle = () => {
    if (--inFlight === 0) drained?.();
  };

  const send = (dueAt: number, measured: boolean) => {
    inFlight++;
    let writtenAt = Number.NaN;
    let settled = false;
    const fail = () => {
      if (settled) return;
      settled = true;
      errors++;
      settle();
    };
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: options.method ?? "POST",
        headers,
        timeout: timeoutMs,
      },
      (res) => {
        res.on("end", () => {
          if (settled) return;
          settled = true;
          const end = performance.now();
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            if (measured) {
              responses++;
              service.record(toNs(end - (Number.isNaN(writtenAt) ? dueAt : writtenAt)));
              corrected.record(toNs(end - dueAt));
            }
          } else {
            non2xx++;
          }
          settle();
        });
        res.on("error", fail);
        res.resume();
      },
    );
    req.on("finish", () => {
      writtenAt = performance.now();
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", fail);
    req.end(body);
  };

  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    // Everything due by now goes out now: a late timer never shifts the schedule.
    while (sent < total && start + sent * intervalMs <= now) {
      const dueAt = start + sent * intervalMs;
      const measured = sent >= unmeasured;
      if (measured) lag.record(toNs(now - dueAt));
      send(dueAt, measured);
      sent++;
    }
    if (sent < total) await sleep(Math.max(0, start + sent * intervalMs - performance.now()));
  }
  if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
  agent.destroy();
  return {
    sent,
    responses,
    rps: responses / seconds,
    non2xx,
    errors,
    p50Ms: ms(service, 50),
    p99Ms: ms(service, 99),
    maxMs: service.count === 0 ? 0 : service.max / 1e6,
    correctedP50Ms: ms(corrected, 50),
    correctedP99Ms: ms(corrected, 99),
    sendLagP99Ms: ms(lag, 99),
  };
}
