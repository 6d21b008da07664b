// The usage dashboard's chart: one bar per period, stacked by agent or model, drawn as SVG. It is a
// chunk of its own, asked for by the Usage page alone. Colours come from the stylesheet (a class per
// series), so the chart follows the theme; the table beside it is the same numbers for screen readers
// and for reading exact values.

export interface ChartSeries {
  name: string;
  /** One value per bar, in the bars' order. */
  values: number[];
  /** The class that colours it; a colour by its place when absent. */
  colour?: string;
}

export interface ChartProps {
  /** The bars' labels, oldest first. */
  labels: string[];
  series: ChartSeries[];
  /** How a value reads on the axis and in a bar's tooltip. */
  format: (value: number) => string;
  /** Says what the chart shows, for its accessible name. */
  title: string;
}

const WIDTH = 960;
const HEIGHT = 260;
const PAD = { top: 12, right: 12, bottom: 28, left: 64 };
/** Colours by place; series beyond this many take them again. */
export const CHART_COLOURS = 8;

/** A round step for the axis: 1, 2 or 5 times a power of ten, giving about four lines. */
function niceStep(max: number): number {
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const m = rough / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

const seriesClass = (s: ChartSeries, k: number): string => s.colour ?? `usage-series-${k % CHART_COLOURS}`;

export function UsageChart({ labels, series, format, title }: ChartProps) {
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(0, ...totals);
  const step = max > 0 ? niceStep(max) : 1;
  const top = max > 0 ? Math.ceil(max / step) * step : 1;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = labels.length > 0 ? plotW / labels.length : plotW;
  const bar = Math.max(1, Math.min(48, slot * 0.7));
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(v);
  // A label every few bars, so that they do not run into each other.
  const labelEvery = Math.max(1, Math.ceil(labels.length / Math.floor(plotW / 80)));
  return (
    <figure class="usage-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title} preserveAspectRatio="none">
        {ticks.map((v) => (
          <g key={v} class="usage-chart-tick">
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(v)} y2={y(v)} />
            <text x={PAD.left - 6} y={y(v) + 4} text-anchor="end">
              {format(v)}
            </text>
          </g>
        ))}
        {labels.map((label, i) => {
          const x = PAD.left + slot * i + (slot - bar) / 2;
          let base = 0;
          return (
            <g key={label} class="usage-chart-bar" data-label={label}>
              {series.map((s, k) => {
                const v = s.values[i] ?? 0;
                if (v <= 0) return null;
                const rect = (
                  <rect
                    key={s.name}
                    class={seriesClass(s, k)}
                    x={x}
                    width={bar}
                    y={y(base + v)}
                    height={Math.max(0, y(base) - y(base + v))}
                  >
                    <title>{`${label} · ${s.name}: ${format(v)}`}</title>
                  </rect>
                );
                base += v;
                return rect;
              })}
              {i % labelEvery === 0 && (
                <text class="usage-chart-label" x={x + bar / 2} y={HEIGHT - 8} text-anchor="middle">
                  {label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="usage-legend">
        {series.map((s, k) => (
          <span key={s.name} class="usage-legend-item">
            <span class={`usage-swatch ${seriesClass(s, k)}`} aria-hidden="true" />
            {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
