// The context shape: input tokens of each request in order, as an SVG area, with compactions marked
// where the main lane recorded them (or, until those are known, where the context fell).
import { formatCount } from '../format.js';

const W = 760;
const H = 240;
const PAD = { left: 56, right: 16, top: 16, bottom: 32 };

/**
 * Where compactions fell in a context shape: the `count` steepest drops, each to under 60% of the point
 * before. A compaction replaces the context with a summary, so it is the one event that makes the
 * input of the next request fall that far.
 */
export function compactionPoints(shape: readonly number[], count: number): number[] {
  if (count <= 0) return [];
  const drops: { at: number; ratio: number }[] = [];
  for (let i = 1; i < shape.length; i++) {
    const before = shape[i - 1]!;
    const after = shape[i]!;
    if (before > 0 && after < before * 0.6) drops.push({ at: i, ratio: after / before });
  }
  return drops
    .sort((a, b) => a.ratio - b.ratio)
    .slice(0, count)
    .map((d) => d.at)
    .sort((a, b) => a - b);
}

export function ContextPlot({
  shape,
  compactions,
  marks: recorded,
}: {
  shape: readonly number[];
  compactions: number;
  /** The points that first follow each of the main lane's compactions, when known. */
  marks?: readonly number[];
}) {
  if (shape.length === 0) return <p class="muted">No request recorded its input tokens.</p>;
  const max = Math.max(...shape, 1);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (shape.length === 1 ? innerW / 2 : (i / (shape.length - 1)) * innerW);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const line = shape.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const area = `${line} L${x(shape.length - 1).toFixed(1)},${y(0)} L${x(0).toFixed(1)},${y(0)} Z`;
  const marks = recorded
    ? recorded.filter((i) => i > 0 && i < shape.length)
    : compactionPoints(shape, compactions);
  const ticks = [0, max / 2, max];
  return (
    <figure class="context-plot">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label="Input tokens per request, in order">
        <title>Input tokens per request, in order</title>
        {ticks.map((t) => (
          <g key={t} class="tick">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
            <text x={PAD.left - 6} y={y(t) + 4} text-anchor="end">
              {formatCount(Math.round(t))}
            </text>
          </g>
        ))}
        <path class="area" d={area} />
        <path class="line" d={line} />
        {marks.map((i, n) => (
          <g key={i} class="compaction-mark">
            <line x1={x(i)} x2={x(i)} y1={PAD.top} y2={PAD.top + innerH} />
            <text x={x(i) + 4} y={PAD.top + 12}>
              compaction {marks.length > 1 ? n + 1 : ''}
            </text>
            <title>
              context went from {formatCount(shape[i - 1]!)} to {formatCount(shape[i]!)} tokens
            </title>
          </g>
        ))}
        <text class="axis-label" x={PAD.left + innerW / 2} y={H - 8} text-anchor="middle">
          requests, in order →
        </text>
      </svg>
      <figcaption class="muted small">
        Input tokens of each request (cache reads and writes included)
        {shape.length >= 120 ? ', downsampled to 120 points keeping each stretch’s peak' : ''}.
        {compactions > marks.length &&
          (recorded
            ? ` ${compactions - marks.length} compaction${compactions - marks.length === 1 ? '' : 's'} fell outside the main agent’s requests drawn here (in a subagent, or after the last request).`
            : ` ${compactions - marks.length} compaction${compactions - marks.length === 1 ? '' : 's'} left no visible drop.`)}
      </figcaption>
    </figure>
  );
}
