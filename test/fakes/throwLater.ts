/**
 * FAULT INJECTION, for tests only: stands for a bug anywhere in a running `engram run` (a bus
 * callback, a timer) that throws outside every try/catch. Preloaded with `node --import`; once the
 * file named by ENGRAM_TEST_THROW_WHEN exists and has grown past ENGRAM_TEST_THROW_AT_BYTES bytes,
 * a timer callback throws "injected fault" (an uncaught exception).
 */
import { existsSync, statSync } from "node:fs";

const path = process.env.ENGRAM_TEST_THROW_WHEN;
const atBytes = Number(process.env.ENGRAM_TEST_THROW_AT_BYTES ?? 0);
if (path) {
  const poll = setInterval(() => {
    if (!existsSync(path) || statSync(path).size <= atBytes) return;
    clearInterval(poll);
    throw new Error(`injected fault: ${path} passed ${atBytes} bytes`);
  }, 50);
  poll.unref();
}
