// Loaded with `node --import` before the CLI: tsx resolves as if it were not installed (from the filesystem root,
// where no node_modules holds it), so Node raises its own "Cannot find package 'tsx'" error. JavaScript, so that it
// loads on a Node that strips no types.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier !== "tsx" && !specifier.startsWith("tsx/")) return nextResolve(specifier, context);
    return nextResolve(specifier, { ...context, parentURL: "file:///" });
  },
});
