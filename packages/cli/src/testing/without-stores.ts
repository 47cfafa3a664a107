// Loaded with `node --import` before the CLI: the store packages resolve as if they were not installed (from the
// filesystem root, where no node_modules holds them), so Node raises its own "Cannot find package" error.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (!/^@flowrt\/store-/.test(specifier)) return nextResolve(specifier, context);
    return nextResolve(specifier, { ...context, parentURL: "file:///" });
  },
});
