export { createFlowRouter, type FlowRouterOptions } from "./create-flow-router.js";
export { isLoopbackHost, urlHost } from "./loopback.js";
export { captureRawBody, type RawBodyRequest } from "./raw-body.js";
