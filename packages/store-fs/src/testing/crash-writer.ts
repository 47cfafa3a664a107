/**
 * Child process of the crash test: writes in a loop with several concurrent workers and prints one
 * JSON line per write it starts (`begin`) and per write the store acknowledged (`ack`), until it
 * is killed. Usage: node --conditions=@flowrt/source --import tsx crash-writer.ts <dir> <workers>
 */
import { createFsStores } from "../create-fs-stores.js";
import { CRASH_ADDRESS, crashOp } from "./crash-schedule.js";

async function main(): Promise<void> {
  const [dir, workersArg] = process.argv.slice(2);
  const stores = createFsStores({ dir: dir!, retention: false });
  const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const worker = async (w: number) => {
    for (let i = 0; ; i++) {
      const op = crashOp(w, i);
      print({ phase: "begin", w, i });
      let seq: number | undefined;
      switch (op.kind) {
        case "put":
          await stores.resources.putState(CRASH_ADDRESS, op.key, op.value, { type: "any" });
          break;
        case "delete":
          await stores.resources.deleteState(CRASH_ADDRESS, op.key, { type: "any" });
          break;
        case "content":
          await stores.resources.putContent(CRASH_ADDRESS, op.key, op.body);
          break;
        case "session":
          await stores.sessions.create({
            id: op.id,
            flowId: "f",
            flowKind: "f",
            userId: "u",
            rootSessionId: op.id,
            metadata: { w, i },
            createdAt: new Date().toISOString(),
          });
          break;
        case "event":
          seq = (
            await stores.requests.appendEvent({
              requestId: op.requestId,
              type: "text.delta",
              at: new Date().toISOString(),
              data: { i },
            })
          ).seq;
          break;
      }
      print({ phase: "ack", w, i, seq });
    }
  };
  await Promise.all(Array.from({ length: Number(workersArg) }, (_, w) => worker(w)));
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
