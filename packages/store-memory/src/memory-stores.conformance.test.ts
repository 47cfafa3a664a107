import { describeStoreConformance } from "@flowrt/store-conformance";
import { createMemoryStores } from "./create-memory-stores.js";

describeStoreConformance({ name: "memory", create: () => createMemoryStores() });
