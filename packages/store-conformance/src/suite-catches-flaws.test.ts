import { describe, expect, it } from "vitest";
import { ALL_CASES } from "./cases/index.js";
import type { ConformanceCaseName } from "./describe-store-conformance.js";
import { FENCED_METHODS, type FenceFlaw, withFenceFlaw } from "./testing/fence-flaws.js";
import { createNaiveStores, type NaiveStoreFlaw } from "./testing/naive-stores.js";

/**
 * A suite that cannot fail proves nothing. Each deliberate flaw below is planted in the otherwise
 * passing reference store, and the named case must reject it.
 */
const flaws: Record<NaiveStoreFlaw, ConformanceCaseName[]> = {
  "aliases-stored-values": [
    "sessions/copies",
    "requests/create-get",
    "scope-state/copies",
    "resources/copies",
    "events/copies",
  ],
  "restarts-version-after-delete": ["resources/tombstone"],
  "throws-on-conflict": ["resources/cas", "concurrency/create-only-race"],
  "writes-on-lost-cas": ["resources/cas", "scope-state/cas"],
  "wildcard-prefix": ["resources/list-prefix-plain", "resources/list-leaf-prefix-plain"],
  "insertion-order-list": ["resources/list-order", "resources/list-paging", "resources/list-leaf"],
  "code-point-order": ["resources/list-order-astral", "resources/list-leaf"],
  "racy-compare-and-swap": ["concurrency/cas-increments", "concurrency/create-only-race"],
  "racy-event-seq": ["events/concurrent-append"],
  "ignores-bucket": ["isolation/resources"],
  "empty-content-reads-null": ["resources/content"],
  "keeps-content-on-delete": ["resources/delete-removes-content"],
  "mutable-owner-fields": ["sessions/update"],
  "unguarded-request-update": ["requests/update-cas", "concurrency/record-races"],
  "purge-keeps-events": ["retention/max-age"],
  "purge-keeps-active": ["retention/max-age"],
  "unordered-active": ["requests/active-registry"],
  "purge-ties-by-lesser-id": ["retention/max-count"],
  "keeps-ephemeral-sessions": ["retention/ephemeral-sessions"],
  "unsubscribe-does-nothing": ["events/subscribe"],
  "counts-tombstones": ["resources/tombstone", "resources/list-paging", "resources/list-leaf-paging"],
  "ignores-leaf": ["resources/list-leaf", "resources/list-leaf-paging", "resources/list-leaf-prefix-plain"],
  "filters-leaf-after-paging": ["resources/list-leaf", "resources/list-leaf-paging"],
  "text-list-ignores-leaf": ["resources/state-text"],
  "pretty-state-text": ["resources/state-text"],
  "ignores-cap": ["resources/capped-create", "concurrency/capped-creates"],
  "counts-cap-before-waiting": ["concurrency/capped-creates"],
  "cap-before-absent": ["resources/capped-create"],
  "cap-ignores-leaf": ["resources/capped-create", "concurrency/capped-creates"],
  "ignores-fences": [
    "fencing/stale-epoch",
    "fencing/missing-request",
    "fencing/after-release",
    "fencing/peer-claim",
  ],
  "fences-before-waiting": ["fencing/claim-race"],
  "forgets-epoch-on-update": [
    "fencing/epoch-persists",
    "fencing/stale-epoch",
    "fencing/after-release",
    "fencing/peer-claim",
  ],
  "refuses-current-epoch": ["fencing/current-epoch", "fencing/stale-epoch", "fencing/peer-claim"],
  "patch-replaces-metadata": ["sessions/patch", "sessions/patch-concurrent"],
  "patch-merges-deep": ["sessions/patch"],
  "keeps-null-title": ["sessions/patch"],
  "racy-metadata-patch": ["sessions/patch-concurrent"],
  "lists-deleting-sessions": ["sessions/mark-deleting"],
  "lists-from-after-inclusive": [
    "sessions/mark-deleting",
    "sessions/list-after",
    "requests/list-by-session-after",
  ],
  "remove-keeps-other-buckets": ["session-removal/everything", "scope-removal/user", "scope-removal/org"],
  "remove-keeps-tombstones": ["session-removal/everything", "scope-removal/user", "scope-removal/org"],
  "remove-keeps-events": ["session-removal/everything", "requests/remove-by-user"],
  "remove-by-owner-id": ["session-removal/others-untouched", "scope-removal/user", "scope-removal/org"],
  "remove-takes-children": ["session-removal/others-untouched"],
  "session-requests-oldest-first": ["requests/list-by-session", "requests/list-by-session-after"],
  "remove-by-user-ignores-org": ["requests/remove-by-user"],
  "remove-scope-keeps-resources": ["scope-removal/user", "scope-removal/org"],
  "remove-scope-by-id-prefix": ["scope-removal/user", "scope-removal/org"],
  "keyset-includes-after": ["resources/list-after", "resources/list-after-pages"],
  "keyset-narrows-total": ["resources/list-after"],
  "claims-ticks-twice": ["schedules/claim-once", "schedules/claim-race"],
  "racy-tick-claim": ["schedules/claim-race"],
  "never-takes-over-ticks": ["schedules/take-over", "schedules/newest-and-superseded"],
  "fires-stale-epoch": ["schedules/fire", "schedules/take-over", "schedules/fire-race"],
  "refires-ticks": ["schedules/fire"],
  "claims-superseded-ticks": ["schedules/newest-and-superseded"],
  "effects-on-lost-cas": ["request-effects/stale-version", "request-effects/racing-updates"],
  "unnotified-update-events": ["request-effects/with-update"],
  "update-seqs-from-one": ["request-effects/with-update"],
  "keeps-active-on-null": ["request-effects/with-update"],
  "session-despite-request": ["request-session/refusals"],
  "request-despite-session": ["request-session/refusals", "request-session/create-race"],
  "unlisted-own-session": ["request-session/create"],
  "get-many-skips-missing": ["scope-state/get-many"],
  "get-many-sorted": ["scope-state/get-many"],
};

function caseNamed(name: ConformanceCaseName) {
  const found = ALL_CASES.find((c) => c.name === name);
  if (!found) throw new Error(`no case ${name}`);
  return found;
}

describe("the suite fails flawed stores", () => {
  for (const [flaw, names] of Object.entries(flaws) as [NaiveStoreFlaw, ConformanceCaseName[]][]) {
    for (const name of names) {
      it(`${name} catches a store that ${flaw.replaceAll("-", " ")}`, async () => {
        await expect(caseNamed(name).run(createNaiveStores())).resolves.toBeUndefined();
        await expect(caseNamed(name).run(createNaiveStores(flaw))).rejects.toThrow();
      });
    }
  }
});

/**
 * The fencing cases call every fenced method: a store whose one method mishandles its fence is caught, whichever
 * method it is (the planted flaws above are caught by the first method a case calls).
 */
const fenceFlaws: Record<FenceFlaw, ConformanceCaseName[]> = {
  "drops-fence": [
    "fencing/stale-epoch",
    "fencing/missing-request",
    "fencing/after-release",
    "fencing/peer-claim",
  ],
  "reads-claim-before-writing": ["fencing/claim-race"],
};

describe("the fencing cases check every fenced method", () => {
  for (const [flaw, names] of Object.entries(fenceFlaws) as [FenceFlaw, ConformanceCaseName[]][]) {
    for (const method of FENCED_METHODS) {
      for (const name of names) {
        it(`${name} catches a store whose ${method} ${flaw.replaceAll("-", " ")}`, async () => {
          await expect(caseNamed(name).run(createNaiveStores())).resolves.toBeUndefined();
          await expect(caseNamed(name).run(withFenceFlaw(createNaiveStores(), method, flaw))).rejects.toThrow(
            method,
          );
        });
      }
    }
  }
});
