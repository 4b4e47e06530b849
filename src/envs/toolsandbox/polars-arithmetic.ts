/**
 * The float arithmetic of ToolSandbox's snapshot similarity as polars 0.20.31 and numpy carry it out, measured against
 * them: `-log` of a Float32 similarity in 32-bit floats (polars computes `ln(x) / ln(e)` with `e` itself rounded to
 * 32 bits), `mean_horizontal` as a balanced pairwise sum that promotes Float32 + Float32 only to Float32 (nulls count
 * as zero but not in the divisor), and numpy's pairwise `mean`.
 */

/** One column similarity value: `null` where polars has a null, `float32` for Float32 columns (else Float64). */
export interface SimilarityCell {
  value: number | null;
  float32: boolean;
}

const LN_E_FLOAT32 = Math.fround(Math.log(Math.fround(Math.E)));

/** polars' `-pl.col(x).log()` of one cell. */
export function negativeLog(cell: SimilarityCell): SimilarityCell {
  if (cell.value === null) return cell;
  if (cell.float32) return { value: -Math.fround(Math.fround(Math.log(cell.value)) / LN_E_FLOAT32), float32: true };
  return { value: -(Math.log(cell.value) / Math.log(Math.E)), float32: false };
}

function add(left: SimilarityCell, right: SimilarityCell): SimilarityCell {
  const leftValue = left.value ?? 0;
  const rightValue = right.value ?? 0;
  if (left.float32 && right.float32) return { value: Math.fround(leftValue + rightValue), float32: true };
  return { value: leftValue + rightValue, float32: false };
}

function pairwiseSum(cells: readonly SimilarityCell[], start: number, end: number): SimilarityCell {
  if (end - start === 1) {
    const only = cells[start] as SimilarityCell;
    return { value: only.value ?? 0, float32: only.float32 };
  }
  const middle = start + Math.floor((end - start) / 2);
  return add(pairwiseSum(cells, start, middle), pairwiseSum(cells, middle, end));
}

/** polars' `pl.mean_horizontal(...)` over one row: null when every cell is null. */
export function meanHorizontal(cells: readonly SimilarityCell[]): number | null {
  const present = cells.filter((cell) => cell.value !== null).length;
  if (present === 0) return null;
  return (pairwiseSum(cells, 0, cells.length).value as number) / present;
}

function numpyPairwiseSum(values: readonly number[], start: number, count: number): number {
  if (count < 8) {
    let sum = 0;
    for (let index = start; index < start + count; index++) sum += values[index] as number;
    return sum;
  }
  if (count <= 128) {
    const partial = values.slice(start, start + 8);
    let index = 8;
    for (; index < count - (count % 8); index += 8) for (let lane = 0; lane < 8; lane++) partial[lane] = (partial[lane] as number) + (values[start + index + lane] as number);
    const [a, b, c, d, e, f, g, h] = partial as [number, number, number, number, number, number, number, number];
    let sum = a + b + (c + d) + (e + f + (g + h));
    for (; index < count; index++) sum += values[start + index] as number;
    return sum;
  }
  let half = Math.floor(count / 2);
  half -= half % 8;
  return numpyPairwiseSum(values, start, half) + numpyPairwiseSum(values, start + half, count - half);
}

/** numpy's `array.mean()` for a float64 array. */
export function numpyMean(values: readonly number[]): number {
  return numpyPairwiseSum(values, 0, values.length) / values.length;
}
