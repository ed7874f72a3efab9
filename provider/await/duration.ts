/**
 * Durations in the Go/Pulumi spelling used by `customTimeouts` and our `timeouts` inputs: "90s", "10m",
 * "1h30m". Plain numbers are seconds.
 */

/** DURATION_PATTERN matches one or more `<number><unit>` groups with units h, m, s or ms. */
export const DURATION_PATTERN = /^(\d+(\.\d+)?(ms|h|m|s))+$/;

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** parseDuration returns milliseconds, or undefined if the text is not a duration. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text * 1000 : undefined;
  const trimmed = text.trim();
  if (!DURATION_PATTERN.test(trimmed)) return undefined;
  let total = 0;
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) total += Number(m[1]) * UNIT_MS[m[2]];
  return total;
}

/** formatDuration renders milliseconds the way Go prints a time.Duration: 250ms, 1.5s, 45s, 2m30s, 10m0s, 1h0m0s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const totalSeconds = ms / 1000;
  if (totalSeconds < 60) return `${Number(totalSeconds.toFixed(1))}s`;
  const rounded = Math.round(totalSeconds);
  const h = Math.floor(rounded / 3600);
  const m = Math.floor((rounded % 3600) / 60);
  const s = rounded % 60;
  return h ? `${h}h${m}m${s}s` : `${m}m${s}s`;
}
