/** Small, dependency-free timing helpers: every figure is measured here, in this process. */

export interface Measurement {
  name: string;
  opsPerSec: number;
  /** Mean time per operation in microseconds. */
  meanUs: number;
  p50Us: number;
  p99Us: number;
  samples: number;
}

/**
 * Runs `op` repeatedly for about `ms` milliseconds after a short warm-up and reports throughput and
 * per-operation latency. Each sample is one awaited call, so the figures include the event-loop cost
 * an application pays.
 */
export async function measure(name: string, op: (i: number) => unknown, ms = 1000): Promise<Measurement> {
  for (let i = 0; i < 50; i++) await op(i);
  const times: number[] = [];
  const deadline = performance.now() + ms;
  let i = 0;
  const started = performance.now();
  while (performance.now() < deadline) {
    const t0 = performance.now();
    await op(i++);
    times.push(performance.now() - t0);
  }
  const elapsed = performance.now() - started;
  times.sort((a, b) => a - b);
  return {
    name,
    opsPerSec: (times.length / elapsed) * 1000,
    meanUs: (elapsed / times.length) * 1000,
    p50Us: (times[Math.floor(times.length * 0.5)] ?? 0) * 1000,
    p99Us: (times[Math.floor(times.length * 0.99)] ?? 0) * 1000,
    samples: times.length,
  };
}

export function formatTable(rows: Record<string, string | number>[]): string {
  if (rows.length === 0) return "";
  const headers = Object.keys(rows[0]!);
  const cell = (v: string | number) =>
    typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v;
  const lines = [
    `| ${headers.join(" | ")} |`,
    `|${headers.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${headers.map((h) => cell(r[h]!)).join(" | ")} |`),
  ];
  return lines.join("\n");
}

/** Runs `fn` over `items` with at most `width` in flight. */
export async function pool<T>(
  items: Iterable<T>,
  width: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  const iterator = items[Symbol.iterator]();
  const workers = Array.from({ length: width }, async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) await fn(next.value);
  });
  await Promise.all(workers);
}
