import assert from "node:assert/strict";
import { test } from "node:test";
import { GrpoMechanismsError } from "./grpo-mechanisms-error.js";
import { parseGrpoMechanisms } from "./grpo-mechanisms.js";

test("the reference trainer's mechanisms are on by default, with its settings", () => {
  assert.deepEqual(parseGrpoMechanisms(undefined), {
    hints: { share: 0.25 },
    dynamicSampling: { extraRounds: 2, minInformativeShare: 0.5 },
    dropInformationTurns: true,
    toolResultTruncation: { enabled: true, keepTurns: 1, maxCharacters: 200 },
  });
  const partial = parseGrpoMechanisms({ hints: { share: 0 }, toolResultTruncation: { maxCharacters: 50 } });
  assert.equal(partial.hints.share, 0);
  assert.deepEqual(partial.toolResultTruncation, { enabled: true, keepTurns: 1, maxCharacters: 50 });
});

test("a bad mechanism setting is a usage error naming the field", () => {
  assert.throws(
    () => parseGrpoMechanisms({ hints: { share: 2 }, dynamicSampling: { extraRounds: -1 } }),
    (error: unknown) => error instanceof GrpoMechanismsError && error.category === "usage" && /hints\.share/.test(error.message) && /dynamicSampling\.extraRounds/.test(error.message),
  );
  assert.throws(() => parseGrpoMechanisms({ dynamicSampling: { minInformativeShare: 0 } }), GrpoMechanismsError);
  assert.throws(() => parseGrpoMechanisms({ hint: {} } as never), /Unrecognized key/);
});
