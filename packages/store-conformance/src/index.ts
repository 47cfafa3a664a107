export type { ConformanceCaseName, StoreConformanceOptions } from "./describe-store-conformance.js";
export { CONFORMANCE_CASES, describeStoreConformance } from "./describe-store-conformance.js";
/** Record and address fixtures the cases use, for a store's own tests. */
export { requestRecord, sessionAddress, sessionRecord } from "./fixtures.js";
