export { isLoopbackHost, urlHost } from "./loopback.js";
export { createFlowRouter, type FlowRouterOptions } from "./create-flow-router.js";
export { captureRawBody, type RawBodyRequest } from "./raw-body.js";
