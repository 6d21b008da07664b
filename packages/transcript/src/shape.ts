// The context shape rule, on its own so that adapters' fast passes and foldTranscript share it
// without adapters importing the loading layer.

/** At most this many points in a context shape. */
export const CONTEXT_SHAPE_POINTS = 120;

/** Downsamples a series to at most `points` values, keeping the largest of each equal bucket. */
export function downsampleMax(values: readonly number[], points = CONTEXT_SHAPE_POINTS): number[] {
  if (values.length <= points) return [...values];
  const out: number[] = [];
  for (let i = 0; i < points; i++) {
    const from = Math.floor((i * values.length) / points);
    const to = Math.floor(((i + 1) * values.length) / points);
    let max = values[from]!;
    for (let j = from + 1; j < to; j++) max = Math.max(max, values[j]!);
    out.push(max);
  }
  return out;
}
