import assert from "node:assert/strict";
import { test } from "node:test";
import type { Snapshot } from "./compare-setup.js";
import { scoreSnapshots, snapshotLabel } from "./run-compare.js";

test("a snapshot's store label names seed, method and budget point, and a prompt policy's candidate", () => {
  assert.equal(snapshotLabel(0, "trace", 512, { kind: "model", model: "s0-trace" }), "seed-0|trace|512");
  const first = snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: { a: "Check first.", b: "Pay exactly." } });
  assert.match(first, /^seed-1\|gepa\|576\|[0-9a-f]{12}$/);
  // The same candidate in another key order is the same policy; another text is another policy.
  assert.equal(snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: { b: "Pay exactly.", a: "Check first." } }), first);
  assert.notEqual(snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: { a: "Check first!", b: "Pay exactly." } }), first);
  assert.notEqual(snapshotLabel(1, "gepa", 576, { kind: "prompt", candidate: {} }), first);
});

test("a method's curve evaluates each distinct agent once: the own prompt is the base agent, a kept candidate or checkpoint is scored once", async () => {
  const score = (passed: number) => [{ domain: "mini", passed, total: 10, meanReward: passed / 10 }];
  const evaluated: string[] = [];
  const evaluate = (snapshot: Snapshot) => {
    evaluated.push(`${snapshot.episodes}`);
    return Promise.resolve(score(snapshot.episodes / 100));
  };
  // GEPA deploying the agent's own prompt throughout: every point is the base agent's scores, nothing evaluated.
  const own = await scoreSnapshots(
    [
      { episodes: 384, policy: { kind: "prompt", candidate: {} } },
      { episodes: 768, policy: { kind: "prompt", candidate: {} } },
    ],
    "base",
    score(4),
    evaluate,
  );
  assert.deepEqual(evaluated, []);
  assert.deepEqual(
    own.map((point) => [point.episodes, point.domains[0]!.passed]),
    [
      [0, 4],
      [384, 4],
      [768, 4],
    ],
  );
  assert.deepEqual(own[2]!.policy, { kind: "prompt", candidate: {} }, "the snapshot keeps the policy it deployed");
  // A candidate kept from one point to the next (in another key order) is evaluated once; a new one again.
  const gepa = await scoreSnapshots(
    [
      { episodes: 200, policy: { kind: "prompt", candidate: { a: "Check.", b: "Pay." } } },
      { episodes: 400, policy: { kind: "prompt", candidate: { b: "Pay.", a: "Check." } } },
      { episodes: 600, policy: { kind: "prompt", candidate: { a: "Check!", b: "Pay." } } },
    ],
    "base",
    score(4),
    evaluate,
  );
  assert.deepEqual(evaluated, ["200", "600"]);
  assert.deepEqual(
    gepa.map((point) => point.domains[0]!.passed),
    [4, 2, 2, 6],
  );
  // Checkpoints: the same adapter directory twice is one agent; another directory under the same name is another.
  evaluated.length = 0;
  await scoreSnapshots(
    [
      { episodes: 300, policy: { kind: "model", model: "s0-grpo", adapterPath: "/run/step-0004" } },
      { episodes: 600, policy: { kind: "model", model: "s0-grpo", adapterPath: "/run/step-0004" } },
      { episodes: 900, policy: { kind: "model", model: "s0-grpo", adapterPath: "/run/step-0008" } },
      { episodes: 0, policy: { kind: "model", model: "base" } },
    ],
    "base",
    score(4),
    evaluate,
  );
  assert.deepEqual(evaluated, ["300", "900"]);
});
