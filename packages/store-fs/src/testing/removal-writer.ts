/**
 * Child process of the removal kill test: fills sessions (see removal-model.ts), printing `{ p: "f", n }` once
 * session `n` is filled, then removes them one by one, printing `{ p: "b", n }` when a removal starts and
 * `{ p: "a", n, removed }` when the store acknowledged it, until the parent kills the process.
 * Usage: node removal-writer.mjs <dir> <round> <sessions> (bundled by the test, see bundle-child.ts).
 */
import { createFsStores } from "../create-fs-stores.js";
import { fillSession, removalSessionId } from "./removal-model.js";

async function main(): Promise<void> {
  const [dir, roundArg, countArg] = process.argv.slice(2);
  const round = Number(roundArg);
  const count = Number(countArg);
  const stores = createFsStores({ dir: dir!, retention: false });
  const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  for (let n = 0; n < count; n++) {
    await fillSession(stores, removalSessionId(round, n));
    print({ p: "f", n });
  }
  for (let n = 0; n < count; n++) {
    print({ p: "b", n });
    const removed = await stores.sessions.remove(removalSessionId(round, n));
    print({ p: "a", n, removed });
  }
  // Not killed in time: the parent reports it.
  print({ p: "done" });
  await stores.close();
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
