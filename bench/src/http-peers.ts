/**
 * Issue 20's table for the HTTP benchmark: each flowrt server against the peer a user would write instead, per
 * route, measured in the same rotating rounds. flowrt on Express ÷ a bare Express app (target ≥ 0.9×), and the
 * engine alone, its transport-neutral handler on a minimal `node:http` wrapper, ÷ a bare `node:http` server doing
 * the same work (target ≥ 0.75×). Every figure is a median of rounds with its range; the per-round ratios pair
 * the two servers of the same round. The verdict is on requests per second, as the issue states it; the CPU ratio
 * (the peer's CPU per request ÷ flowrt's) says the same thing without the load generator's share of the machine.
 */
import { median } from "./before-after.js";
import type { ServerKind } from "./http-fixture.js";
import { formatTable } from "./measure.js";

export interface PeerPair {
  name: string;
  flowrt: ServerKind;
  peer: ServerKind;
  /** The least flowrt ÷ peer requests per second that meets the target. */
  target: number;
}

export const PEER_PAIRS: readonly PeerPair[] = [
  { name: "flowrt ÷ Express", flowrt: "flowrt", peer: "bare", target: 0.9 },
  { name: "flowrt-node ÷ bare-node", flowrt: "flowrt-node", peer: "bare-node", target: 0.75 },
];

/** One server's rounds on one route, in round order. */
export interface Rounds {
  rps: number[];
  cpuUsPerReq: number[];
}

export interface PeerRoute {
  route: string;
  /** The rounds of each server kind measured on this route. */
  servers: ReadonlyMap<ServerKind, Rounds>;
}

const range = (values: number[], digits: number) => {
  const f = (v: number) => v.toFixed(digits);
  return `${f(Math.min(...values))}–${f(Math.max(...values))}`;
};
const withRange = (values: number[]) => `${Math.round(median(values))} (${range(values, 0)})`;
const perRound = (a: number[], b: number[], ratio: (x: number, y: number) => number) =>
  a.map((x, i) => ratio(x, b[i]!));

/** Markdown: the table, then one verdict line per pair measured. Pairs missing a server are left out. */
export function peerTable(routes: PeerRoute[]): string {
  const rows: Record<string, string | number>[] = [];
  const verdicts = new Map<PeerPair, { met: string[]; missed: string[] }>();
  for (const { route, servers } of routes) {
    for (const pair of PEER_PAIRS) {
      const f = servers.get(pair.flowrt);
      const p = servers.get(pair.peer);
      if (!f || !p) continue;
      const ratio = median(f.rps) / median(p.rps);
      const cpuRatio = median(p.cpuUsPerReq) / median(f.cpuUsPerReq);
      const met = ratio >= pair.target;
      const verdict = verdicts.get(pair) ?? { met: [], missed: [] };
      (met ? verdict.met : verdict.missed).push(`${route} ${ratio.toFixed(2)}×`);
      verdicts.set(pair, verdict);
      rows.push({
        route,
        pair: pair.name,
        "flowrt req/s (range)": withRange(f.rps),
        "peer req/s (range)": withRange(p.rps),
        "req/s ratio": ratio.toFixed(3),
        "per round": range(
          perRound(f.rps, p.rps, (x, y) => x / y),
          2,
        ),
        "flowrt CPU µs/req (range)": withRange(f.cpuUsPerReq),
        "peer CPU µs/req (range)": withRange(p.cpuUsPerReq),
        "CPU ratio (peer ÷ flowrt)": cpuRatio.toFixed(3),
        "CPU per round": range(
          perRound(p.cpuUsPerReq, f.cpuUsPerReq, (x, y) => x / y),
          2,
        ),
        target: `≥ ${pair.target}×`,
        "met (req/s)": met ? "met" : "MISSED",
        "on CPU": cpuRatio >= pair.target ? "met" : "missed",
      });
    }
  }
  if (rows.length === 0) return "";
  return [
    "Against the peers (issue 20): flowrt on Express ÷ bare Express, and the engine's handler on `node:http` ÷ bare `node:http`.",
    "",
    formatTable(rows),
    "",
    ...[...verdicts].map(([pair, { met, missed }]) =>
      missed.length === 0
        ? `- ${pair.name} ≥ ${pair.target}× (req/s, medians of rounds): met on every route (${met.join(", ")}).`
        : `- ${pair.name} ≥ ${pair.target}× (req/s, medians of rounds): MISSED on ${missed.join(", ")}${met.length > 0 ? `; met on ${met.join(", ")}` : ""}.`,
    ),
    "- req/s and CPU µs/req: medians of the rounds, (min–max) over the rounds; per round: the same ratio within each round.",
  ].join("\n");
}
