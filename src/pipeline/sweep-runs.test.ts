import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { PipelineConfigError } from "./pipeline-config-error.js";
import { parsePipelineConfig } from "./pipeline-config.js";
import { checkKeptModels, checkSweep, mergeConfigPatch, parseSweepRuns, resolveSweepConfig, SweepError } from "./sweep-runs.js";

const base = { name: "x", model: { sft: { epochs: 24, rank: 16 }, initTiny: { seed: 0 } }, compare: { seeds: [0, 1, 2] } };
const configs = (file: string): unknown => {
  if (file === "base.json") return structuredClone(base);
  if (file === "other.json") return { name: "other", model: { sft: { epochs: 8 } } };
  throw new Error(`unexpected read of ${file}`);
};

test("a patch merges objects key by key and replaces arrays, scalars and null; neither argument changes", () => {
  const original = structuredClone(base);
  const merged = mergeConfigPatch(base, { model: { sft: { epochs: 36 } }, compare: { seeds: [7] }, extra: null });
  assert.deepEqual(merged, { name: "x", model: { sft: { epochs: 36, rank: 16 }, initTiny: { seed: 0 } }, compare: { seeds: [7] }, extra: null });
  assert.deepEqual(base, original);
  // An object patched onto a scalar or an array replaces it rather than merging into it.
  assert.deepEqual(mergeConfigPatch({ a: 1, b: [1, 2] }, { a: { c: 1 }, b: { d: 2 } }), { a: { c: 1 }, b: { d: 2 } });
});

test("a run resolves from its own configuration, the sweep's default, or the run it is \"from\" (that run's patch included)", () => {
  const runs = parseSweepRuns(
    [
      { name: "a", patch: { model: { sft: { epochs: 36 } } } },
      { name: "b", config: "other.json", patch: { model: { initTiny: { seed: 1 } } } },
      { name: "c", from: "a", patch: { compare: { seeds: [4] } } },
    ],
    "sweep",
  );
  assert.deepEqual(resolveSweepConfig(runs, "a", "base.json", configs), { ...base, model: { sft: { epochs: 36, rank: 16 }, initTiny: { seed: 0 } } });
  assert.deepEqual(resolveSweepConfig(runs, "b", "base.json", configs), { name: "other", model: { sft: { epochs: 8 }, initTiny: { seed: 1 } } });
  assert.deepEqual(resolveSweepConfig(runs, "c", "base.json", configs), { ...base, model: { sft: { epochs: 36, rank: 16 }, initTiny: { seed: 0 } }, compare: { seeds: [4] } });
  assert.throws(() => resolveSweepConfig(runs, "d", "base.json", configs), (error: unknown) => SweepError.isInstance(error) && /no run named "d".*a, b, c/.test(error.message));
});

test("a malformed sweep is refused in one line naming what is wrong", () => {
  const refuses = (value: unknown, pattern: RegExp) =>
    assert.throws(() => parseSweepRuns(value, "s.json"), (error: unknown) => SweepError.isInstance(error) && pattern.test(error.message) && !error.message.includes("\n"));
  refuses({ name: "a" }, /s\.json: \(top level\)/);
  refuses([], /s\.json: \(top level\)/);
  refuses([{ name: "a b" }], /0\.name: letters, digits/);
  refuses([{ name: "a", until: "analyse" }], /0\.until/);
  refuses([{ name: "a", patsh: {} }], /patsh/);
  refuses([{ name: "a" }, { name: "a" }], /"a" is used twice/);
  refuses([{ name: "a", from: "z" }], /"a" is "from" "z", which is not a run/);
  refuses([{ name: "a", from: "b" }, { name: "b", from: "a" }], /"a" is "from" itself through a → b → a/);
  refuses([{ name: "a", after: "z" }], /"a" is "after" "z", which is not a run/);
  refuses([{ name: "a", after: "b" }, { name: "b", from: "a" }], /"a" is "from" itself through a → b → a/);
  refuses([{ name: "a", after: "a" }], /"a" is "after" itself through a → a/);
  assert.equal(parseSweepRuns([{ name: "a" }, { name: "b", after: "a" }, { name: "c", from: "a", after: "b" }], "s.json").length, 3);
  assert.equal(parseSweepRuns([{ name: "a", until: "" }, { name: "b", until: "compare" }], "s.json").length, 2);
});

test("checking a sweep validates every run's merged configuration with the pipeline's own schema", () => {
  const minimal = { name: "x", model: {}, target: { dataDirectory: "data", domains: ["airline"] }, environments: { map: {} } };
  const read = () => structuredClone(minimal);
  const checked = checkSweep(parseSweepRuns([{ name: "a", patch: { training: { iterations: 3 } } }], "s"), "c.json", read);
  assert.equal(checked.get("a")?.training.iterations, 3);
  assert.throws(
    () => checkSweep(parseSweepRuns([{ name: "ok" }, { name: "bad", patch: { training: { iteratoins: 3 } } }], "s"), "c.json", read),
    (error: unknown) => PipelineConfigError.isInstance(error) && /sweep run bad: training: Unrecognized key: "iteratoins"/.test(error.message),
  );
});

test("the checkpoints a call keeps must be runs of its sweep", () => {
  const runs = parseSweepRuns([{ name: "b24s8" }, { name: "b24s9" }], "s");
  assert.deepEqual(checkKeptModels(runs, " b24s8  b24s9 "), ["b24s8", "b24s9"]);
  assert.deepEqual(checkKeptModels(runs, ""), []);
  assert.throws(
    () => checkKeptModels(parseSweepRuns([{ name: "s0" }], "s"), "b24s8"),
    (error: unknown) => SweepError.isInstance(error) && error.message === 'TRACE_KEEP_MODELS: "b24s8" is not a run of the sweep (s0)',
  );
});

test("every sweep the device scripts were given resolves to a valid configuration (the committed ones, as run)", () => {
  const root = path.resolve(import.meta.dirname, "../..");
  const directory = path.join(root, "scripts/mini-v2-sweeps");
  // The sweeps name configurations relative to the repository, where the device script runs them.
  const read = (file: string): unknown => JSON.parse(readFileSync(path.resolve(root, file), "utf8"));
  let sweeps = 0;
  for (const entry of readdirSync(directory).filter((name) => name.endsWith(".json"))) {
    const value: unknown = read(path.join(directory, entry));
    if (!Array.isArray(value)) {
      parsePipelineConfig(value, entry); // a whole configuration a sweep's run names
      continue;
    }
    assert.ok(checkSweep(parseSweepRuns(value, entry), "configs/mini-v2-gpu.json", read).size > 0, entry);
    sweeps += 1;
  }
  assert.ok(sweeps >= 30, `found ${sweeps} sweeps`);
});
