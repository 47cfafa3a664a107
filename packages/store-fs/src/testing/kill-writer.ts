/**
 * Child process of the kill-recovery test: several workers create, update, write content to and delete their own
 * keys in a loop, printing one JSON line when an operation starts (`b`) and one when the store acknowledged it
 * (`a`, with the result), until the parent kills the process. Each line is one small synchronous write to a pipe,
 * so the parent reads every line written before the kill, whole.
 * Usage: node kill-writer.mjs <dir> <round> <workers> (bundled by the test, see bundle-child.ts).
 */
import { createFsStores } from "../create-fs-stores.js";
import { KILL_ADDRESS, type KillOp, killKeys } from "./kill-model.js";

/** A small seeded generator (mulberry32): each round and worker draws its own sequence. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function nextOp(draw: () => number, w: number, round: number, i: number): KillOp {
  const keys = killKeys(w);
  const key = keys[Math.floor(draw() * keys.length)]!;
  const roll = draw();
  if (roll < 0.3) return { kind: "create", key, value: { round, w, i } };
  if (roll < 0.45) return { kind: "update", key, value: { round, w, i } };
  if (roll < 0.75) return { kind: "content", key, body: `body ${round}/${w}/${i}` };
  return { kind: "delete", key };
}

async function main(): Promise<void> {
  const [dir, roundArg, workersArg] = process.argv.slice(2);
  const round = Number(roundArg);
  const stores = createFsStores({ dir: dir!, retention: false });
  const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const r = stores.resources;
  const worker = async (w: number) => {
    const draw = random(round * 1000 + w + 1);
    for (let i = 0; ; i++) {
      const op = nextOp(draw, w, round, i);
      print({ p: "b", w, i, op });
      let result: unknown = null;
      if (op.kind === "create") result = await r.putState(KILL_ADDRESS, op.key, op.value, { type: "absent" });
      else if (op.kind === "update")
        result = await r.putState(KILL_ADDRESS, op.key, op.value, { type: "any" });
      else if (op.kind === "content") await r.putContent(KILL_ADDRESS, op.key, op.body);
      else result = await r.deleteState(KILL_ADDRESS, op.key, { type: "any" });
      print({ p: "a", w, i, result });
    }
  };
  await Promise.all(Array.from({ length: Number(workersArg) }, (_, w) => worker(w)));
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
