/**
 * Child process of the effects kill test: several workers each run requests through their life in a loop (a create
 * with the request's own session, a claim entering the active registry with `request.started`, progress updates
 * with events, a terminal update leaving the registry with `request.completed` last), printing one JSON line when a
 * write starts (`b`) and one when the store acknowledged it (`a`), until the parent kills the process.
 * Usage: node effects-writer.mjs <dir> <round> <workers> (bundled by the test, see bundle-child.ts).
 */
import { createFsStores } from "../create-fs-stores.js";
import { EFFECT_STEPS, effectsRequest, effectsSession, entryOf, stepOf } from "./effects-model.js";

async function main(): Promise<void> {
  const [dir, roundArg, workersArg] = process.argv.slice(2);
  const round = Number(roundArg);
  const stores = createFsStores({ dir: dir!, retention: false });
  const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const worker = async (w: number) => {
    for (let i = 0; ; i++) {
      const request = effectsRequest(round, w, i);
      print({ p: "b", w, id: request.id, step: "create" });
      const created = await stores.requests.create(request, { session: effectsSession(request) });
      print({ p: "a", w, id: request.id, step: "create", result: created, version: 1 });
      for (let version = 1; version < EFFECT_STEPS.length; version++) {
        const step = stepOf(request, version);
        print({ p: "b", w, id: request.id, step: step.name });
        const result = await stores.requests.update(request.id, version, step.patch, {
          ...(step.active === undefined ? {} : { active: step.active ? entryOf(request) : null }),
          events: step.events,
        });
        print({ p: "a", w, id: request.id, step: step.name, result, version: version + 1 });
      }
    }
  };
  await Promise.all(Array.from({ length: Number(workersArg) }, (_, w) => worker(w)));
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
