import assert from "node:assert/strict";
import { test } from "node:test";
import { miniTargetModule } from "../envs/mini/mini-capability-modules.js";
import { createModuleSdk } from "../envs/modules/module-sdk.js";
import { miniTaskKinds } from "./target-tasks.js";

test("a TRACE-mini task counts under its family, and a precondition task also under whether its order is pending and its status", () => {
  const module = miniTargetModule(["precondition", "payment", "composite"]);
  const sdk = createModuleSdk();
  const seen = new Map<string, number>();
  for (let seed = 0; seed < 200; seed += 1) {
    const facts = module.generate(seed, sdk).facts;
    const kinds = miniTaskKinds(facts);
    assert.equal(kinds[0], facts.family, String(seed));
    if (facts.family === "precondition") {
      const expected = facts.status === "pending" ? ["precondition", "precondition · pending"] : ["precondition", "precondition · not pending", `precondition · ${facts.status as string}`];
      assert.deepEqual(kinds, expected, String(seed));
    }
    else assert.equal(kinds.length, 1, String(seed));
    for (const kind of kinds) seen.set(kind, (seen.get(kind) ?? 0) + 1);
  }
  assert.deepEqual([...seen.keys()].sort(), ["composite", "payment", "precondition", "precondition · delivered", "precondition · not pending", "precondition · pending", "precondition · processed"]);
  assert.equal((seen.get("precondition · pending") ?? 0) + (seen.get("precondition · not pending") ?? 0), seen.get("precondition"));
  assert.equal((seen.get("precondition · delivered") ?? 0) + (seen.get("precondition · processed") ?? 0), seen.get("precondition · not pending"));
  assert.deepEqual(miniTaskKinds({}), ["unknown"]);
});
