/** Specification types shared by every stage: messages, tools, tasks, trajectories, rewards, environments, the error base. */
export * from "./message.js";
export * from "./tool-spec.js";
export * from "./reward.js";
export * from "./trajectory.js";
export * from "./task.js";
export * from "./environment.js";
export * from "./trace-error.js";
