import { FlowError } from "@flowrt/core";
import type { RegisteredFlow } from "../flows/registry.js";
import type { RunTarget } from "./active-run.js";

/** {@link targetOf}'s answers: flows are immutable once registered. */
const targets = new WeakMap<RegisteredFlow, Map<string, RunTarget>>();

/** The block and policy a stored action label names, looked up once per flow and label. */
export function targetOf(flow: RegisteredFlow, action: string): RunTarget {
  let byLabel = targets.get(flow);
  if (byLabel === undefined) targets.set(flow, (byLabel = new Map()));
  let target = byLabel.get(action);
  if (target === undefined) {
    target = findTarget(flow, action);
    byLabel.set(action, target);
  }
  return target;
}

function findTarget(flow: RegisteredFlow, action: string): RunTarget {
  if (action.startsWith("webhook:")) {
    const [, provider = "", ...rest] = action.split(":");
    const { webhooks } = flow.definition;
    const on = Object.hasOwn(webhooks, provider) ? webhooks[provider]!.on : undefined;
    const eventType = rest.join(":");
    const binding = on !== undefined && Object.hasOwn(on, eventType) ? on[eventType] : undefined;
    if (binding) return { block: binding.block, policy: binding };
  } else if (action.startsWith("schedule:")) {
    const name = action.slice("schedule:".length);
    const { schedules } = flow.definition;
    const schedule = Object.hasOwn(schedules, name) ? schedules[name] : undefined;
    if (schedule) return { block: schedule.block, policy: schedule };
  } else {
    const definition = flow.definition.actions[action];
    if (definition) return { block: definition.block, policy: definition };
  }
  throw new FlowError("action-not-found", `Flow "${flow.id}" no longer has "${action}".`);
}
