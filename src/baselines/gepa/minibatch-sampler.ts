/**
 * GEPA's training minibatches (gepa `strategies/batch_sampler.py` `EpochShuffledBatchSampler`): the training indices
 * are shuffled once per epoch and padded to a multiple of the minibatch size with the least used indices; iteration
 * `i` takes the slice starting at `i · size` (modulo the padded length), reshuffling when a new epoch begins.
 */
import type { RandomSource } from "./random-source.js";

export class MinibatchSampler {
  #order: number[] = [];
  #epoch = -1;

  constructor(
    readonly trainingSize: number,
    readonly size: number,
    readonly random: RandomSource,
  ) {}

  #shuffle(): void {
    const order = this.random.shuffle(Array.from({ length: this.trainingSize }, (_, index) => index));
    const uses = new Map(order.map((index) => [index, 1]));
    const padding = (this.size - (order.length % this.size)) % this.size;
    for (let added = 0; added < padding; added += 1) {
      const lowest = Math.min(...uses.values());
      const pick = [...order].reverse().find((index) => uses.get(index) === lowest) as number;
      order.push(pick);
      uses.set(pick, lowest + 1);
    }
    this.#order = order;
  }

  /** Training indices of iteration `iteration` (0-based). */
  next(iteration: number): number[] {
    const start = iteration * this.size;
    const epoch = this.#epoch === -1 ? 0 : Math.floor(start / this.#order.length);
    if (this.#order.length === 0 || epoch > this.#epoch) {
      this.#epoch = epoch;
      this.#shuffle();
    }
    const offset = start % this.#order.length;
    return this.#order.slice(offset, offset + this.size);
  }
}
