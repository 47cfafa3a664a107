export type { MemoryRetentionOptions, MemoryStoresOptions } from "./create-memory-stores.js";
export { createMemoryStores, DEFAULT_MEMORY_RETENTION } from "./create-memory-stores.js";
