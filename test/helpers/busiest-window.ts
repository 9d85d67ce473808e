/**
 * The most instants that fall in any window of a given length: how a rate limit sees a series of
 * request starts. Only windows that begin at an instant need checking (sliding one to start at the
 * next instant never adds one).
 */

/** The largest number of `instants` (ms) in any half-open window [t, t + windowMs). */
export function busiestWindow(instants: readonly number[], windowMs: number): number {
  const sorted = [...instants].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}
