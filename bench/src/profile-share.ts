/**
 * Where a server's CPU time goes, from the `.cpuprofile` the benchmarks write (`HTTP_BENCH_CPU_PROF=<dir>`, and the
 * other benchmarks' `*_BENCH_CPU_PROF`): self time grouped by package and folder, so a distance between two servers
 * can be said in parts. Groups: `node_modules/<package>`, `packages/<package>` by folder (`packages/engine` →
 * `http/`, `resources/`, …), `bench/src` by file, `node internals` by module (`_http_server`, `streams`, `net`, …),
 * `GC`, and `V8/Node (program)` (native time no JavaScript frame called). A native function (a V8 builtin such as
 * `JSON.stringify`, a binding such as `writev`) counts to the frame that called it, marked `(native)`.
 *
 * Samples before the first request (module loading, seeding; up to the first sample with Node's HTTP server handing
 * a request over, `parserOnIncoming`, on its stack) are left out, and so is idle time.
 *
 * @example
 * pnpm --filter @flowrt/bench exec tsx src/profile-share.ts /tmp/prof
 * pnpm --filter @flowrt/bench exec tsx src/profile-share.ts /tmp/prof --requests flowrt-node=120000,bare-node=180000 --top 5
 *
 * With every profile's responses given, the side-by-side table ends with the difference per response of each pair
 * `--diff a:b,…` names (by default flowrt − bare and flowrt-node − bare-node, when present).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { formatTable } from "./measure.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's self time is counted: a group, and a finer part of it. */
interface Place {
  group: string;
  detail: string;
}

const IDLE = "(idle)";
const GC = "(garbage collector)";
const PROGRAM: Place = { group: "V8/Node (program)", detail: "" };

/** The group of a JavaScript frame's file (a `file://` or `node:` URL). */
export function placeOf(url: string): Place {
  if (url.startsWith("node:")) {
    const module = url.slice("node:".length).replace(/^internal\//, "");
    return { group: "node internals", detail: module.split("/")[0]!.replace(/\.js$/, "") };
  }
  const path = url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const parts = path.slice(modules + "/node_modules/".length).split("/");
    const scoped = parts[0]!.startsWith("@");
    const name = scoped ? `${parts[0]}/${parts[1]}` : parts[0]!;
    const rest = parts.slice(scoped ? 2 : 1);
    return { group: `node_modules/${name}`, detail: rest.length > 1 ? `${rest[0]}/` : (rest[0] ?? "") };
  }
  const workspace = /\/packages\/([^/]+)\/(?:src|dist)\/(.*)$/.exec(path);
  if (workspace) {
    const rest = workspace[2]!.split("/");
    return { group: `packages/${workspace[1]}`, detail: rest.length > 1 ? `${rest[0]}/` : rest[0]! };
  }
  const bench = /\/bench\/(?:current-)?src\/(.*)$/.exec(path);
  if (bench) return { group: "bench/src", detail: bench[1]! };
  return { group: "other", detail: path };
}

export interface Share {
  file: string;
  /** Busy time counted, in µs (idle and the time before the first request left out). */
  busyUs: number;
  /** Time before the first request, left out, in µs. */
  startupUs: number;
  idleUs: number;
  /** Self µs by group, then by detail. */
  groups: Map<string, Map<string, number>>;
}

/** Self time of one profile by group and detail. */
export function shareOf(file: string): Share {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const places = new Map<number, Place | typeof IDLE>();
  const serving = new Map<number, boolean>();
  const placeOfNode = (id: number): Place | typeof IDLE => {
    const known = places.get(id);
    if (known) return known;
    const { functionName, url } = byId.get(id)!.callFrame;
    let place: Place | typeof IDLE;
    if (url !== "") place = placeOf(url);
    else if (functionName === IDLE) place = IDLE;
    else if (functionName === GC) place = { group: "GC", detail: "" };
    else {
      // Native code counts to the JavaScript that called it; with none, to V8/Node itself.
      let up = parent.get(id);
      while (up !== undefined && byId.get(up)!.callFrame.url === "") up = parent.get(up);
      const caller = up === undefined ? undefined : placeOfNode(up);
      place =
        caller === undefined || caller === IDLE
          ? { ...PROGRAM, detail: functionName }
          : { group: caller.group, detail: `${caller.detail} (native)` };
    }
    places.set(id, place);
    return place;
  };
  /** Whether Node's HTTP server is on the node's stack: the process is serving a request. */
  const isServing = (id: number): boolean => {
    const known = serving.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const { url, functionName } = byId.get(id)!.callFrame;
    const result =
      (url === "node:_http_server" && functionName === "parserOnIncoming") ||
      (up !== undefined && isServing(up));
    serving.set(id, result);
    return result;
  };

  const share: Share = { file, busyUs: 0, startupUs: 0, idleUs: 0, groups: new Map() };
  const { samples, timeDeltas } = profile;
  let started = false;
  for (let i = 0; i < samples.length; i++) {
    // A sample lasts until the next one is taken.
    const us = timeDeltas[i + 1] ?? 0;
    const id = samples[i]!;
    started ||= isServing(id);
    const place = placeOfNode(id);
    if (place === IDLE) share.idleUs += us;
    else if (!started) share.startupUs += us;
    else {
      share.busyUs += us;
      const details = share.groups.get(place.group) ?? new Map<string, number>();
      details.set(place.detail, (details.get(place.detail) ?? 0) + us);
      share.groups.set(place.group, details);
    }
  }
  return share;
}

const total = (details: Map<string, number>) => [...details.values()].reduce((a, b) => a + b, 0);

/** A profile's name: its file name without the `-<time>.cpuprofile` the benchmarks add. */
export const profileName = (file: string) => basename(file).replace(/(-\d+)?\.cpuprofile$/, "");

/** Markdown: one profile's groups (largest first), each with its `top` largest details. */
export function shareTable(share: Share, top: number, requests?: number): string {
  const rows: Record<string, string | number>[] = [];
  const perReq = (us: number) => (requests ? (us / requests).toFixed(2) : "");
  const groups = [...share.groups].sort((a, b) => total(b[1]) - total(a[1]));
  for (const [group, details] of groups) {
    const us = total(details);
    rows.push({
      group,
      part: "(all)",
      "self ms": (us / 1000).toFixed(1),
      "% of busy": ((us / share.busyUs) * 100).toFixed(1),
      ...(requests ? { "µs/req": perReq(us) } : {}),
    });
    const parts = [...details].filter(([detail]) => detail !== "").sort((a, b) => b[1] - a[1]);
    for (const [detail, partUs] of parts.slice(0, top)) {
      rows.push({
        group: "",
        part: detail,
        "self ms": (partUs / 1000).toFixed(1),
        "% of busy": ((partUs / share.busyUs) * 100).toFixed(1),
        ...(requests ? { "µs/req": perReq(partUs) } : {}),
      });
    }
  }
  return [
    `### ${profileName(share.file)} (\`${basename(share.file)}\`)`,
    "",
    `Busy ${(share.busyUs / 1000).toFixed(0)} ms from the first request on` +
      (requests ? ` over ${requests} responses (${perReq(share.busyUs)} µs each)` : "") +
      `; left out: ${(share.startupUs / 1000).toFixed(0)} ms before it, ${(share.idleUs / 1000).toFixed(0)} ms idle.`,
    "",
    formatTable(rows),
  ].join("\n");
}

/** The pairs whose difference the side-by-side table shows by default: the HTTP benchmark's servers and their peers. */
const DEFAULT_DIFFS: [string, string][] = [
  ["flowrt", "bare"],
  ["flowrt-node", "bare-node"],
];

/**
 * Markdown: every group's share side by side, in µs per response when every profile's responses are known (else
 * in % of each one's busy time), then for each pair `a − b` (given, or the HTTP servers and their peers present)
 * the difference per response: where the distance between the two lies.
 */
export function comparisonTable(
  shares: Share[],
  requests: Map<string, number>,
  diffs: [string, string][] = DEFAULT_DIFFS,
): string {
  const perRequest = shares.every((share) => requests.has(profileName(share.file)));
  const names = shares.map((share) => profileName(share.file));
  // Two profiles of one server (two runs in one folder) are told apart by their file names.
  const columns = shares.map((share, i) =>
    names.indexOf(names[i]!) === names.lastIndexOf(names[i]!) ? names[i]! : basename(share.file),
  );
  const groups = new Map<string, number>();
  for (const share of shares)
    for (const [group, details] of share.groups) groups.set(group, (groups.get(group) ?? 0) + total(details));
  const ordered = [...groups.keys()].sort((a, b) => groups.get(b)! - groups.get(a)!);
  const figure = (share: Share, group: string) => {
    const details = share.groups.get(group);
    const us = group === "total" ? share.busyUs : details ? total(details) : 0;
    return perRequest ? us / requests.get(profileName(share.file))! : (us / share.busyUs) * 100;
  };
  const pairs = perRequest
    ? diffs.filter(([a, b]) => columns.includes(a) && columns.includes(b) && a !== b)
    : [];
  const rows = [...ordered, "total"].map((group) => {
    const row: Record<string, string> = { group };
    shares.forEach((share, i) => {
      row[columns[i]!] = figure(share, group).toFixed(perRequest ? 2 : 1);
    });
    for (const [a, b] of pairs) {
      const difference =
        figure(shares[columns.indexOf(a)]!, group) - figure(shares[columns.indexOf(b)]!, group);
      row[`${a} − ${b}`] = `${difference >= 0 ? "+" : ""}${difference.toFixed(2)}`;
    }
    return row;
  });
  return [
    `### Side by side (${perRequest ? "self µs per response" : "% of each one's busy time; --requests for µs per response and differences"})`,
    "",
    formatTable(rows),
  ].join("\n");
}

function profilesIn(paths: string[]): string[] {
  return paths.flatMap((path) =>
    statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith(".cpuprofile"))
          .sort()
          .map((name) => join(path, name))
      : [path],
  );
}

/** `--diff a:b,c:d`: the pairs whose difference to show. */
function parseDiffs(value: string | undefined): [string, string][] {
  return (value?.split(",").filter(Boolean) ?? []).map((pair) => {
    const [a, b] = pair.split(":");
    if (!a || !b) throw new Error(`--diff: "${pair}" is not a:b`);
    return [a, b];
  });
}

/** `--requests a=1,b=2`: responses served per profile name. */
function parseRequests(value: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const pair of value?.split(",").filter(Boolean) ?? []) {
    const [name, count] = pair.split("=");
    if (!name || !count || !/^\d+$/.test(count)) throw new Error(`--requests: "${pair}" is not name=count`);
    out.set(name, Number(count));
  }
  return out;
}

function main(argv: string[]): void {
  const paths: string[] = [];
  let top = 6;
  let requests = new Map<string, number>();
  let diffs = DEFAULT_DIFFS;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--top") top = Number(argv[++i]);
    else if (arg === "--requests") requests = parseRequests(argv[++i]);
    else if (arg === "--diff") diffs = parseDiffs(argv[++i]);
    else paths.push(arg);
  }
  const files = profilesIn(paths);
  if (files.length === 0) {
    console.error(
      "usage: profile-share.ts <file.cpuprofile | dir>… [--top N] [--requests name=responses,…] [--diff a:b,…]\n" +
        "(no .cpuprofile found)",
    );
    process.exit(2);
  }
  const shares = files.map(shareOf);
  const out = shares.map((share) => shareTable(share, top, requests.get(profileName(share.file))));
  if (shares.length > 1) out.push(comparisonTable(shares, requests, diffs));
  console.log(out.join("\n\n"));
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) main(process.argv.slice(2));
