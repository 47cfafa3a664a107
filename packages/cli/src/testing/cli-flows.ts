// A flows module for `flowrt serve` tests: named flow exports, no resolver.
export { notebook, slow } from "./fixture-flows.js";
