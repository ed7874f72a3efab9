/** Processes the tests start: whether one still runs. */

/** Whether a process of that pid still runs (signal 0 only checks). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
