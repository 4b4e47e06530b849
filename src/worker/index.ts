/** The Python worker's TypeScript side: the trainer client and the process manager. */
export { createTrainerClient, datumToWire, type AdapterPath, type RequestOptions, type TrainerClient, type TrainerClientOptions } from "./trainer-client.js";
export type * from "./trainer-types.js";
export { startWorker, type StartWorkerOptions, type WorkerExit, type WorkerProcess } from "./worker-process.js";
export { repositoryRoot, resolvePythonInterpreter, workerEnvironment, type PythonOptions } from "./python-environment.js";
export { findFreePort } from "./free-port.js";
export { PythonInterpreterNotFoundError } from "./python-interpreter-not-found-error.js";
export { WorkerConnectionError } from "./worker-connection-error.js";
export { WorkerRequestError } from "./worker-request-error.js";
export { WorkerResponseError } from "./worker-response-error.js";
export { WorkerStartError } from "./worker-start-error.js";
export { WorkerTimeoutError } from "./worker-timeout-error.js";
export { WorkerCommandError } from "./worker-command-error.js";
export { runWorkerModule, type RunWorkerModuleOptions } from "./run-worker-module.js";
export { createTinyCheckpoint, tinyCheckpointArguments, type TinyCheckpointOptions, type TinyModelShape, type TokenizerCorpus } from "./tiny-checkpoint.js";
export { completionDatum } from "./completion-datum.js";
