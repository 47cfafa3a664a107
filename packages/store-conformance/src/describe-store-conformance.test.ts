import { describeStoreConformance } from "./describe-store-conformance.js";
import { createNaiveStores } from "./testing/naive-stores.js";

// The reference run: a simple, obviously correct store passes every case.
describeStoreConformance({ name: "naive reference store", create: createNaiveStores });

describeStoreConformance({
  name: "naive reference store with a skip",
  create: createNaiveStores,
  skip: { "resources/list-order-astral": "demonstrates how a skipped case is reported" },
});
