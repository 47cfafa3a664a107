export * from "./errors.js";
export * from "./store/contract.js";
