import type { RewardCurves } from './metrics.ts';

/**
 * Reward curves as a small SVG line chart (epoch or step on x, reward on y), one line per series with a
 * legend, and the numbers in a visually hidden table for screen readers. Scales to its container's width.
 */
export function RewardChart({ curves, title }: { curves: RewardCurves; title: string }) {
  const points = curves.series.flatMap((series) => series.points);
  if (points.length === 0) return null;
  const width = 320;
  const height = 140;
  const pad = { left: 36, right: 8, top: 8, bottom: 22 };
  const xs = points.map((point) => point.x);
  const rewards = points.map((point) => point.reward);
  const [minX, maxX] = [Math.min(...xs), Math.max(...xs)];
  const minY = Math.min(0, ...rewards);
  let maxY = Math.max(...rewards);
  if (maxY === minY) maxY = minY + 1;
  const x = (value: number) => pad.left + (maxX === minX ? 0.5 : (value - minX) / (maxX - minX)) * (width - pad.left - pad.right);
  const y = (reward: number) => pad.top + (1 - (reward - minY) / (maxY - minY)) * (height - pad.top - pad.bottom);
  const described = curves.series.map((series) => `${series.name} ${series.points.at(-1)?.reward.toFixed(3)} at ${curves.axis} ${series.points.at(-1)?.x}`).join(', ');
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${described}`}>
        <line class="axis" x1={pad.left} y1={height - pad.bottom} x2={width - pad.right} y2={height - pad.bottom} />
        <line class="axis" x1={pad.left} y1={pad.top} x2={pad.left} y2={height - pad.bottom} />
        <text class="tick" x={pad.left - 4} y={y(maxY) + 4} text-anchor="end">{maxY.toFixed(2)}</text>
        <text class="tick" x={pad.left - 4} y={y(minY)} text-anchor="end">{minY.toFixed(2)}</text>
        <text class="tick" x={pad.left} y={height - 6}>{curves.axis} {minX}</text>
        <text class="tick" x={width - pad.right} y={height - 6} text-anchor="end">{curves.axis} {maxX}</text>
        {curves.series.map((series, index) => (
          <g key={series.name} class={`series series-${index}`}>
            <path class="line" d={series.points.map((point, i) => `${i === 0 ? 'M' : 'L'}${x(point.x).toFixed(1)},${y(point.reward).toFixed(1)}`).join(' ')} />
            {series.points.map((point) => <circle key={point.x} class="dot" cx={x(point.x)} cy={y(point.reward)} r={2.5} />)}
          </g>
        ))}
      </svg>
      <figcaption>
        {title}
        {curves.series.map((series, index) => <span key={series.name} class={`legend series-${index}`}>{series.name}</span>)}
      </figcaption>
      <table class="visually-hidden">
        <caption>{title}</caption>
        <thead><tr><th scope="col">Series</th><th scope="col">{curves.axis}</th><th scope="col">Reward</th></tr></thead>
        <tbody>
          {curves.series.flatMap((series) => series.points.map((point) => (
            <tr key={`${series.name}-${point.x}`}><td>{series.name}</td><td>{point.x}</td><td>{point.reward}</td></tr>
          )))}
        </tbody>
      </table>
    </figure>
  );
}
