/**
 * Issue 21: "100 000 webhook deliveries leave a bounded number of session records". A memory-store host with a
 * webhook provider and a flow whose binding names no `sessionId` (`retention-host.ts`): every delivery makes an
 * ephemeral session, which the host's retention removes with the delivery's last request. Deliveries are posted
 * through the HTTP route (signed, `RETENTION_CONCURRENCY` at a time over keep-alive connections); after every
 * `RETENTION_SAMPLE_EVERY` of them the benchmark counts, through the store, the session records, the request
 * records and the runs not finished. At the end it waits for every run to finish, counts, lets one purge run
 * (`purgeFinished` with the host's own policy), and counts again: bounded means at most `maxCount` plus the runs in
 * flight at that purge, and every delivery answered 202 and ran its handler once.
 *
 * Knobs: `RETENTION_DELIVERIES` (default 100000), `RETENTION_SAMPLE_EVERY` (10000), `RETENTION_CONCURRENCY` (16),
 * `RETENTION_MAX_AGE_MS` (0), `RETENTION_MAX_COUNT` (1000), `RETENTION_INTERVAL_MS` (1000). The host runs in this
 * process on the packages' sources (through tsx, as `pnpm bench` loads them): the figures are counts, not speeds.
 */
import { Agent, request } from "node:http";
import { availableParallelism, cpus, loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { type RetentionOptions, resolveRetention } from "@flowrt/core";
import { formatTable, pool } from "./measure.js";
import { type RetentionHost, signedEvent, startRetentionHost } from "./retention-host.js";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** Posts one delivery; resolves with the status once the answer is read. */
function post(agent: Agent, target: RetentionHost, i: number): Promise<number> {
  const { body, headers } = signedEvent(i);
  return new Promise((resolve, reject) => {
    const req = request(
      `${target.origin}${target.path}`,
      { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** What the store holds now: session records, request records, and runs not finished (queued or running). */
async function census(target: RetentionHost) {
  const { stores } = target;
  const sessions = (await stores.sessions.list({ limit: 1 })).total;
  const unfinished = (await stores.requests.listByStatus(["queued", "running"])).length;
  const finished = (await stores.requests.listByStatus(["completed", "failed", "aborted"])).length;
  const failed = (await stores.requests.listByStatus(["failed", "aborted"])).length;
  return { sessions, requests: finished + unfinished, unfinished, failed };
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

export async function run(): Promise<string> {
  const [loadAtStart] = loadavg();
  const deliveries = env("RETENTION_DELIVERIES", 100_000);
  const every = env("RETENTION_SAMPLE_EVERY", 10_000);
  const width = env("RETENTION_CONCURRENCY", 16);
  const retention: Required<RetentionOptions> = {
    maxAgeMs: env("RETENTION_MAX_AGE_MS", 0),
    maxCount: env("RETENTION_MAX_COUNT", 1000),
    intervalMs: env("RETENTION_INTERVAL_MS", 1000),
  };
  const resolved = resolveRetention(retention, "retention benchmark");
  if (resolved === false) throw new Error("the retention benchmark needs a retention");
  const target = await startRetentionHost(retention);
  const agent = new Agent({ keepAlive: true, maxSockets: width });
  const statuses = new Map<number, number>();
  const rows: Record<string, string | number>[] = [];
  let maxSessions = 0;
  let fastest = 0;
  try {
    const t0 = performance.now();
    for (let sent = 0; sent < deliveries; ) {
      const batch = Math.min(every, deliveries - sent);
      const from = sent;
      const tBatch = performance.now();
      await pool(
        Array.from({ length: batch }, (_, k) => from + k),
        width,
        async (i) => {
          const status = await post(agent, target, i);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        },
      );
      sent += batch;
      const batchSec = (performance.now() - tBatch) / 1000;
      const now = await census(target);
      maxSessions = Math.max(maxSessions, now.sessions);
      fastest = Math.max(fastest, batch / batchSec);
      const memory = process.memoryUsage();
      rows.push({
        delivered: sent,
        "elapsed s": (performance.now() - t0) / 1000,
        "deliveries/s": Math.round(batch / batchSec),
        "session records": now.sessions,
        "request records": now.requests,
        "runs not finished": now.unfinished,
        "heap MiB": mib(memory.heapUsed),
        "RSS MiB": mib(memory.rss),
      });
    }
    // Every run to its end, then one purge with the host's own policy.
    const deadline = performance.now() + 60_000;
    let settled = await census(target);
    while (settled.unfinished > 0 && performance.now() < deadline) {
      await sleep(100);
      settled = await census(target);
    }
    const purged = await target.stores.requests.purgeFinished(resolved.policy);
    const after = await census(target);
    const accepted = statuses.get(202) ?? 0;
    const bound = retention.maxCount + settled.unfinished;
    const bounded = after.sessions <= bound;
    const others = [...statuses].filter(([status]) => status !== 202);
    return [
      `_${availableParallelism()} CPUs (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, load average ${loadAtStart?.toFixed(2)} at the start, ${loadavg()[0]?.toFixed(2)} at the end._`,
      "",
      formatTable(rows),
      "",
      `- ${deliveries} deliveries without a \`sessionId\` through \`POST ${target.path}\`, ${width} at a time; retention \`${JSON.stringify(retention)}\` (the host's schedule purges every ${retention.intervalMs} ms during the run).`,
      `- 202 answers: ${accepted} of ${deliveries}${others.length > 0 ? ` (others: ${others.map(([s, c]) => `${s} ×${c}`).join(", ")})` : ""}; handler runs: ${target.handled()}; failed or aborted requests at the end: ${settled.failed}.`,
      `- most session records seen after a batch: ${maxSessions} (${((maxSessions / deliveries) * 100).toFixed(1)} % of the deliveries); at the fastest batch's rate one purge interval brings ${Math.round((fastest * retention.intervalMs) / 1000)} deliveries.`,
      `- at the end, every run finished (${settled.unfinished} not finished): ${settled.sessions} session records and ${settled.requests} request records before one purge, which removed ${purged} requests; after it ${after.sessions} session records and ${after.requests} request records.`,
      `- bounded (session records after the purge ≤ maxCount ${retention.maxCount} + runs in flight ${settled.unfinished} = ${bound}): ${bounded ? "yes" : "NO"}${accepted === deliveries && target.handled() === deliveries ? "" : " — but not every delivery was accepted and run once, so this is no result"}.`,
    ].join("\n");
  } finally {
    agent.destroy();
    await target.close();
  }
}
