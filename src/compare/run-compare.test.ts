import assert from "node:assert/strict";
import { test } from "node:test";
import { snapshotLabel } from "./run-compare.js";

test("a snapshot's store label names seed, method and budget point, and a prompt policy's candidate", () => {
  assert.equal(snapshotLabel(0, "trace", 512, { kind: "model", model: "s0-trace" }), "seed-0|trace|512");
  const first = snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: { a: "Check first.", b: "Pay exactly." } });
  assert.match(first, /^seed-1\|gepa\|576\|[0-9a-f]{12}$/);
  // The same candidate in another key order is the same policy; another text is another policy.
  assert.equal(snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: { b: "Pay exactly.", a: "Check first." } }), first);
  assert.notEqual(snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: { a: "Check first!", b: "Pay exactly." } }), first);
  assert.notEqual(snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: {} }), first);
});
