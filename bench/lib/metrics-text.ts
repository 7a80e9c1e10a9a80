/**
 * One sample of a Prometheus text exposition (`/metrics`): the value on the line of `series`, written as
 * the exposition writes it (`name` or `name{label="value"}`), or undefined when the text has no such line.
 */
export function metricSample(text: string, series: string): number | undefined {
  const escaped = series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const value = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
}
