export type { FailedBlock } from "./failed-block.js";
export { failedBlock } from "./failed-block.js";
export type { FlowEntry } from "./flow-catalog.js";
export type { RequestEntry } from "./inspector-api.js";
export { INSPECTOR_SOURCE, type InspectorInboundOptions, inspectorInbound } from "./inspector-inbound.js";
