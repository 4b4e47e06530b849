/** Test support: the smallest `trace run` settings that go through every stage on CPU (tiny model, one GRPO step, lenient calibration). */
export const SMALL_RUN_SETTINGS = {
  model: { initTiny: { seed: 0, maxPositions: 4096 } },
  analysis: { labeler: "llm", runs: 1, batchSize: 3 },
  environments: {
    source: "generated",
    maxAttempts: 1,
    gateSeeds: 5,
    validationSeeds: [0],
    calibration: { seeds: 2, samples: 2, minimumMeanReward: 0, minimumSuccessRate: 0, minimumRewardStd: 0, maximumAllZeroFraction: 1, maximumConstantFraction: 1, minimumInformativeFraction: 0 },
  },
  training: { iterations: 1, groups: 2, samples: 2, learningRate: 1e-4, rank: 4, maxTokens: 12, maxSteps: 2, concurrency: 4, checkpointEvery: 1, seeds: 4 },
  evaluation: { heldOutSeeds: [1000], maxTokens: 12, maxSteps: 2 },
};
