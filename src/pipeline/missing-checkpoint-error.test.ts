import assert from "node:assert/strict";
import { test } from "node:test";
import { MissingCheckpointError } from "./missing-checkpoint-error.js";

test("a missing checkpoint under the working directory says that relative paths resolve against it", () => {
  assert.equal(
    new MissingCheckpointError("/tmp/models/mini-v2-base", "/tmp").message,
    "model checkpoint /tmp/models/mini-v2-base does not exist (a relative model.path is resolved against the working directory, /tmp; set model.initTiny in the configuration to create a tiny random one)",
  );
  assert.equal(
    new MissingCheckpointError("/data/base", "/tmp").message,
    "model checkpoint /data/base does not exist (set model.initTiny in the configuration to create a tiny random one)",
  );
});
