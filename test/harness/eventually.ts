// Waiting on state: polling a check until it holds, never sleeping a fixed time instead.

/** Polls until `check` returns true or the time is up; `what` may say what it saw last. */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs = 30000,
  what: string | (() => string) = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
}
