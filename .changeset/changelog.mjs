// CHANGELOG lines: the changesets CLI's own for each change; the internal dependency bumps of one release in a
// single line (the default writes one "Updated dependencies" line per changeset that caused them, the same hash
// repeated, which buries the release's own entries).
import base from "@changesets/cli/changelog";

export default {
  getReleaseLine: base.getReleaseLine,
  getDependencyReleaseLine: async (_changesets, dependenciesUpdated) => {
    if (dependenciesUpdated.length === 0) return "";
    const list = dependenciesUpdated.map((dependency) => `${dependency.name}@${dependency.newVersion}`);
    return `- Updated dependencies: ${list.join(", ")}`;
  },
};
