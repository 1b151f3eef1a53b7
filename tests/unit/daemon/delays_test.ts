/** The daemon's recent delay: the worst round trip of the last minute, or the oldest still open. */
import assert from "node:assert/strict";
import { DaemonDelays, DELAY_WINDOW_MS } from "../../../src/daemon/delays.ts";

Deno.test("recent delay: worst ended round trip in the window, or the oldest open request", () => {
  let now = 0;
  const delays = new DaemonDelays(() => now);
  assert.equal(delays.recentMs(), 0);
  const first = delays.start();
  now = 4_000;
  assert.equal(delays.recentMs(), 4_000, "an unanswered request counts as it ages");
  first();
  const second = delays.start();
  now = 5_000;
  second();
  assert.equal(delays.recentMs(), 4_000, "the worst, not the latest");
  first(); // finishing twice records nothing
  now = 5_000 + DELAY_WINDOW_MS + 1;
  assert.equal(delays.recentMs(), 0, "old round trips are forgotten");
});
