export { abortedError } from "./abort.js";
export { type ActionHooks, callOnCompleted, callOnErrored, runAction } from "./action-policy.js";
export { type BlockEventType, type BlockRun, createTokenBudget, type TokenBudget } from "./block-run.js";
export { type ExecuteBlock, executeBlock } from "./execute-block.js";
