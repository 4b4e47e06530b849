/** Task keys of the TRACE reference run files: `airline:12` (domain, task id), with `#trial` for trials after the first. */
import type { EpisodeKey } from "../store/trajectory-store.js";

/** `tau2-airline` → `airline`; other environments keep their name. */
function keyPrefix(environment: string): string {
  return environment.startsWith("tau2-") ? environment.slice("tau2-".length) : environment;
}

/** The key of an episode in run files and prompts. */
export function trajectoryKey(episode: EpisodeKey): string {
  const base = `${keyPrefix(episode.environment)}:${episode.taskId}`;
  return episode.trial === 0 ? base : `${base}#${episode.trial}`;
}

/** The task a trajectory key belongs to, its trial dropped: `mini-service:seed-12#3` → `mini-service:seed-12`. */
export function taskOfKey(key: string): string {
  const hash = key.lastIndexOf("#");
  return hash < 0 || !/^\d+$/.test(key.slice(hash + 1)) ? key : key.slice(0, hash);
}
