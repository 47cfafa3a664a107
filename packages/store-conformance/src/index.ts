export type { ConformanceCaseName, StoreConformanceOptions } from "./describe-store-conformance.js";
export { CONFORMANCE_CASES, describeStoreConformance } from "./describe-store-conformance.js";
