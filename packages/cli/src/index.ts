export { type ErasedCounts, type EraseUserCommand, eraseUserData } from "./cli/erase-user.js";
export { type FlowsModule, flowsFromExports, loadFlowsModule } from "./cli/load-flows-module.js";
export { type RunningServer, type ServeOptions, serveFlows } from "./cli/serve.js";
export { openStores, parseStoreSpec, type StoreSpec, UsageError } from "./cli/store-spec.js";
