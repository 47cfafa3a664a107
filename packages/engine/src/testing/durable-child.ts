/** Child process for the durable crash test: starts a host over an fs directory and invokes one durable action. */
import { createFsStores } from "@flowrt/store-fs";
import { createFlowHost } from "../host.js";
import { silentLogger } from "../logger.js";
import { durableFlow } from "./durable-flow.js";

const [dir] = process.argv.slice(2);
const host = createFlowHost({
  flows: [durableFlow],
  stores: createFsStores({ dir: dir! }),
  logger: silentLogger,
  leaseMs: 400,
  recoveryIntervalMs: 0,
});
await host.start();
const { request } = await host.invoke("durable", "slow", { source: "test" }, { input: { label: "x" } });
process.stdout.write(`accepted ${request.id}\n`);
