// The context shape rule of foldTranscript, kept here so that the adapter does not import the
// loading layer (which imports every adapter); the summary equality tests hold the two together.

const POINTS = 120;

/** At most 120 values: the largest of each of 120 equal buckets. */
export function contextShape(values: readonly number[]): number[] {
  if (values.length <= POINTS) return [...values];
  const out: number[] = [];
  for (let i = 0; i < POINTS; i++) {
    const from = Math.floor((i * values.length) / POINTS);
    const to = Math.floor(((i + 1) * values.length) / POINTS);
    let max = values[from] as number;
    for (let j = from + 1; j < to; j++) max = Math.max(max, values[j] as number);
    out.push(max);
  }
  return out;
}
