import type { FlowStores } from "@flowrt/core";
import { context, type Span, SpanKind, trace } from "@opentelemetry/api";
import { engineTracer } from "./instruments.js";
import { recordSpanError } from "./span-error.js";

const AREAS = ["sessions", "requests", "scopeState", "resources", "schedules"] as const;
const STORE_SPAN = Object.freeze({ kind: SpanKind.INTERNAL });

/**
 * The stores with a span per call: `store {area}.{method}` (`flowrt.store.kind`, `flowrt.store.operation`), a
 * child of the active span (the block, the run or the route that called it), ending when the call settles. A
 * method that answers no promise (an async iterable) ends its span when it returns. Every member the stores have,
 * optional reads included, is there as before; methods are called on the stores themselves.
 */
export function traceStores(stores: FlowStores): FlowStores {
  const areas = new Map<PropertyKey, object>();
  for (const area of AREAS) areas.set(area, tracedMethods(stores[area], area, stores.kind));
  const own = tracedMethods(stores, "stores", stores.kind);
  return new Proxy(stores, {
    get(_target, prop) {
      return areas.get(prop) ?? Reflect.get(own, prop);
    },
  });
}

/** A view of `target` whose methods run in spans; each wrapper made on first use and kept. */
function tracedMethods<T extends object>(target: T, area: string, kind: string): T {
  const wrappers = new Map<PropertyKey, { original: unknown; wrapper: unknown }>();
  return new Proxy(target, {
    get(store, prop) {
      const value: unknown = Reflect.get(store, prop, store);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      const known = wrappers.get(prop);
      if (known !== undefined && known.original === value) return known.wrapper;
      const method = value as (...args: unknown[]) => unknown;
      const name = `store ${area}.${prop}`;
      const operation = `${area}.${prop}`;
      const wrapper = (...args: unknown[]): unknown => {
        const tracer = engineTracer();
        if (tracer === undefined) return method.apply(store, args);
        const span = tracer.startSpan(name, STORE_SPAN);
        if (!trace.isSpanContextValid(span.spanContext())) return method.apply(store, args);
        if (span.isRecording()) {
          span.setAttribute("flowrt.store.kind", kind);
          span.setAttribute("flowrt.store.operation", operation);
        }
        let result: unknown;
        try {
          result = context.with(trace.setSpan(context.active(), span), () => method.apply(store, args));
        } catch (error) {
          return fail(span, error);
        }
        if (!isPromiseLike(result)) {
          span.end();
          return result;
        }
        return result.then(
          (settled) => {
            span.end();
            return settled;
          },
          (error: unknown) => fail(span, error),
        );
      };
      wrappers.set(prop, { original: value, wrapper });
      return wrapper;
    },
  });
}

function fail(span: Span, error: unknown): never {
  recordSpanError(span, error);
  span.end();
  throw error;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
