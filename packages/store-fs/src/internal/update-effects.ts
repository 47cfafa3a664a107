import {
  type ActiveRequestEntry,
  FlowError,
  type NewRequestEvent,
  type RequestUpdateEffects,
} from "@flowrt/core";
import { assertJsonObject, assertNonEmptyString, assertString, jsonCopy } from "./validate.js";

/** An update's effects, checked and copied. */
export interface CheckedEffects {
  active?: ActiveRequestEntry | null;
  events: NewRequestEvent[];
}

/** An update's effects checked (every event and the entry of request `id`) and copied, before anything is written. */
export function checkEffects(id: string, effects: RequestUpdateEffects): CheckedEffects {
  // Asserted through `unknown`, which keeps the effects' own types.
  assertJsonObject(effects as unknown, "effects");
  const checked: CheckedEffects = { events: [] };
  const entry = effects.active;
  if (entry === null) checked.active = null;
  else if (entry !== undefined) {
    assertJsonObject(entry as unknown, "effects.active");
    assertNonEmptyString(entry.requestId, "effects.active.requestId");
    assertString(entry.userId, "effects.active.userId");
    if (entry.requestId !== id) {
      throw new FlowError(
        "invalid-request",
        `An update of request "${id}" carries the active entry of request "${entry.requestId}".`,
      );
    }
    checked.active = jsonCopy(entry, "effects.active");
  }
  if (effects.events !== undefined) {
    if (!Array.isArray(effects.events))
      throw new FlowError("invalid-request", "effects.events must be an array.");
    for (const event of effects.events) {
      assertJsonObject(event, "event");
      assertNonEmptyString(event.type, "event.type");
      assertString(event.at, "event.at");
      assertJsonObject(event.data, "event.data");
      if (event.requestId !== id) {
        throw new FlowError(
          "invalid-request",
          `An update of request "${id}" carries an event of request "${String(event.requestId)}".`,
        );
      }
      checked.events.push({
        requestId: id,
        type: event.type,
        at: event.at,
        data: jsonCopy(event.data, "event.data"),
      });
    }
  }
  return checked;
}
