import type { RewardPoint } from './metrics.ts';

/**
 * A reward curve as a small SVG line chart (step on x, reward on y), with its numbers in a visually
 * hidden table for screen readers. Scales to its container's width.
 */
export function RewardChart({ points, title }: { points: readonly RewardPoint[]; title: string }) {
  if (points.length === 0) return null;
  const width = 320;
  const height = 140;
  const pad = { left: 36, right: 8, top: 8, bottom: 22 };
  const steps = points.map((point) => point.step);
  const rewards = points.map((point) => point.reward);
  const [minX, maxX] = [Math.min(...steps), Math.max(...steps)];
  const minY = Math.min(0, ...rewards);
  let maxY = Math.max(...rewards);
  if (maxY === minY) maxY = minY + 1;
  const x = (step: number) => pad.left + (maxX === minX ? 0.5 : (step - minX) / (maxX - minX)) * (width - pad.left - pad.right);
  const y = (reward: number) => pad.top + (1 - (reward - minY) / (maxY - minY)) * (height - pad.top - pad.bottom);
  const line = points.map((point, index) => `${index === 0 ? 'M' : 'L'}${x(point.step).toFixed(1)},${y(point.reward).toFixed(1)}`).join(' ');
  const last = points[points.length - 1]!;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${points.length} steps, last reward ${last.reward.toFixed(3)}`}>
        <line class="axis" x1={pad.left} y1={height - pad.bottom} x2={width - pad.right} y2={height - pad.bottom} />
        <line class="axis" x1={pad.left} y1={pad.top} x2={pad.left} y2={height - pad.bottom} />
        <text class="tick" x={pad.left - 4} y={y(maxY) + 4} text-anchor="end">{maxY.toFixed(2)}</text>
        <text class="tick" x={pad.left - 4} y={y(minY)} text-anchor="end">{minY.toFixed(2)}</text>
        <text class="tick" x={pad.left} y={height - 6}>step {minX}</text>
        <text class="tick" x={width - pad.right} y={height - 6} text-anchor="end">step {maxX}</text>
        <path class="line" d={line} />
        {points.map((point) => <circle key={point.step} class="dot" cx={x(point.step)} cy={y(point.reward)} r={2.5} />)}
      </svg>
      <figcaption>{title}</figcaption>
      <table class="visually-hidden">
        <caption>{title}</caption>
        <thead><tr><th scope="col">Step</th><th scope="col">Reward</th></tr></thead>
        <tbody>{points.map((point) => <tr key={point.step}><td>{point.step}</td><td>{point.reward}</td></tr>)}</tbody>
      </table>
    </figure>
  );
}
