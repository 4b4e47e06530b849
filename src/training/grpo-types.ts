/** What `runGrpo` takes and gives back: GRPO per capability against the trainer API (DESIGN.md step 4). */
import type { ChatClient } from "../models/chat-client.js";
import type { SimulatedUser } from "../rollout/simulated-user.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import type { TrajectoryStore } from "../store/trajectory-store.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import type { CreateAdapterOptions } from "../worker/trainer-types.js";
import type { AdapterSync } from "./adapter-sync.js";
import type { AdvantageNormalization } from "./grpo-data.js";
import type { GrpoMechanismsInput } from "./grpo-mechanisms.js";

/** How many iterations of sampled episodes the store keeps: `all`, `none`, or the last N. */
export type RolloutRetention = "all" | "none" | number;

/** Options of `runGrpo` (defaults in brackets). */
export interface RunGrpoOptions {
  /** The capability's environment (a capability module environment); its tasks are the seeds drawn from. */
  environment: Environment;
  /** The simulated user of a task (for a module environment: `createInstanceUser(environment.instance(task))`). */
  makeUser: (task: Task) => SimulatedUser;
  /** Capability name: checkpoints go to `<adaptersDirectory>/<capability>/`, metrics under scope `grpo/<capability>`. */
  capability: string;
  /** The trainer (the worker). */
  trainer: TrainerClient;
  /** The OpenAI-compatible sampler; requests are sent with `model` = the synced adapter name. */
  sampler: ChatClient;
  /** How trained weights reach the sampler [the worker samples the trainer's adapter directly]. */
  sync?: AdapterSync;
  /** Adapter name on the trainer [capability]. */
  adapter?: string;
  /** Settings of the adapter when it is created [worker defaults: r 16, α 16]. */
  adapterConfig?: Omit<CreateAdapterOptions, "name">;
  /** A `saveState` directory to start from instead of a fresh adapter (e.g. after SFT). */
  initialState?: string;
  /** Root of the checkpoint directories, on the worker's file system [`adapters`]. */
  adaptersDirectory: string;
  /** Metrics go to its metrics table (scope `grpo/<capability>`, step = iteration), when given, and the sampled episodes to its training episodes (`rolloutRetention`). */
  store?: TrajectoryStore;
  /** Which iterations' sampled episodes stay in `store`: every one, none, or the last N [all]. */
  rolloutRetention?: RolloutRetention;
  /** Total iterations, counting those finished before a resume [40]. */
  iterations?: number;
  /** Seeds (groups) per iteration, G [8]. */
  groups?: number;
  /** Rollouts per seed, K [16, as the paper]. */
  samples?: number;
  /** Task order, sampling seeds and the new adapter's LoRA initialisation (unless `adapterConfig.seed`) derive from it [0]. */
  baseSeed?: number;
  /** AdamW learning rate [1e-5]. */
  learningRate?: number;
  /** Gradient-norm clip [worker default 1]. */
  maxGradNorm?: number;
  /** PPO ratio clip ε: the ratio is clipped to [1 − ε, 1 + ε] [0.2]. */
  clipEpsilon?: number;
  /** Advantage normalisation [token-mean]. */
  normalization?: AdvantageNormalization;
  /** Group advantage ε in (r − mean)/(std + ε) [1e-6]. */
  advantageEpsilon?: number;
  /** Sampling temperature [1.0]. */
  temperature?: number;
  /** Max completion tokens per assistant turn [the sampler's default]. */
  maxTokens?: number;
  /** Max steps per episode [the environment's rules]. */
  maxSteps?: number;
  /** Episodes in flight at once [8]. */
  concurrency?: number;
  /**
   * The TRACE reference trainer's mechanisms: hints, dynamic sampling, dropped information-only turns, truncated earlier
   * tool results [`grpoMechanismsSchema`'s defaults: all on]. Hints need the environment's `hint`, turn dropping its
   * `readTools`; prompts re-rendered for training use the trainer's chat template (`trainer.tokenizeChat`).
   */
  mechanisms?: GrpoMechanismsInput;
  /** Save the adapter (and the resumable state) every N iterations, and always after the last [5]. */
  checkpointEvery?: number;
  /** Called after each iteration with its metrics. */
  onIteration?: (metrics: GrpoIterationMetrics) => void;
  signal?: AbortSignal;
  /**
   * The most episodes the current iteration may sample in all (a rollout budget's remainder, asked at each round):
   * dynamic sampling's extra rounds stop when another round of G × K would not fit [no limit].
   */
  episodesAllowed?: () => number;
}

/** One iteration's metrics (null where no update happened: every group dropped). */
export interface GrpoIterationMetrics {
  /** 1-based. */
  iteration: number;
  rewardMean: number;
  rewardStd: number;
  /** Episodes sampled, every round counted (what a rollout budget is charged). */
  episodes: number;
  /** Episodes that ended in an agent or user error (their reward counts as 0). */
  erroredEpisodes: number;
  /** Groups with reward variance, over every sampling round. */
  groupsKept: number;
  /** Groups whose rewards were all equal (no signal), over every sampling round. */
  groupsDropped: number;
  /** Rounds of G groups sampled: 1, plus dynamic sampling's extra rounds. */
  samplingRounds: number;
  /** groupsKept / (groupsKept + groupsDropped). */
  informativeShare: number;
  /** Share of the episodes sampled with the hint in the system prompt. */
  hintedShare: number;
  /** Mean reward of the hinted episodes (null: none); `rewardMean` counts them too. */
  rewardMeanHinted: number | null;
  /** Mean reward of the episodes without the hint (null: none). */
  rewardMeanPlain: number | null;
  /** Sampled assistant turns of the kept groups that are trained on. */
  turnsKept: number;
  /** Sampled assistant turns of the kept groups dropped as information-only (read tools only, not the last turn). */
  turnsDropped: number;
  /** Earlier tool results shortened, summed over the trained turns' contexts. */
  toolResultsTruncated: number;
  sequences: number;
  /** Weighted (policy-sampled) tokens trained on. */
  tokens: number;
  normalization: AdvantageNormalization;
  loss: number | null;
  clipFraction: number | null;
  approxKl: number | null;
  entropy: number | null;
  gradNorm: number | null;
  /** The optimizer step's learning rate (null when the iteration made no step). */
  learningRate: number | null;
  /** Largest |sampler − trainer| logprob difference of the probe after this iteration's sync, when probed. */
  probeLogprobDifference: number | null;
  seconds: number;
}

/** What `runGrpo` returns. */
export interface RunGrpoResult {
  capability: string;
  adapter: string;
  /** Iterations finished before this call (restored from the last checkpoint). */
  resumedFrom: number;
  /** Metrics of the iterations run by this call. */
  history: GrpoIterationMetrics[];
  /** The last saved adapter directory (`…/<capability>/step-XXXX`), null when none was saved. */
  finalAdapterPath: string | null;
  /** The sampler model name of the final weights. */
  samplerModel: string;
  /** `<adaptersDirectory>/<capability>/metrics.jsonl`. */
  metricsFile: string;
  aborted: boolean;
}
