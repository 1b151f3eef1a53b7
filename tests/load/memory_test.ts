/**
 * Memory bounded whatever the host does (issue 22 §2), through the real `serve` process, real
 * stdio and flags. A host writes 20,000 requests of one kind as fast as the pipe allows and reads
 * nothing; once the bridge holds stdin, it reads all of stdout while the rest goes in:
 * - pings (tiny answers: the output bound by count),
 * - tools/list (~62 KB answers: the output bound by bytes),
 * - ~1 MiB tool calls (large frames in, each refused as invalid input).
 * Asserted: peak RSS (VmHWM) ≤ 150 MiB; RSS under 100 MiB within 10 s of the host starting to
 * drain; every request answered exactly once.
 *
 * Then ~1 MiB calls to a daemon slow to answer, 600 of them: calls pile up pending, so this is
 * the bound on pending calls by parse cost. The daemon, not the host, sets the pace here, so RSS
 * is held to ≤ 150 MiB throughout and must be under 100 MiB within 10 s of the last answer.
 *
 * Then frames that cost many times their bytes once parsed (heavy_frames.ts), in every kind of
 * message: deep and wide ones (refused unparsed, 300 of each kind), and ones just within the
 * frame's value bound (read and served, 30 of each kind). Each is held to the same bounds.
 *
 * Durations are printed, never asserted. Each flood prints one `memory-figures {json}` line,
 * and reports its figure for docs/reliability.md.
 */
import assert from "node:assert/strict";
import {
  type FloodFigures,
  type FloodKind,
  LARGE_CALL,
  LARGE_CALL_SLOW_DAEMON,
  PING,
  TOOLS_LIST,
  unreadFlood,
} from "./unread_host.ts";
import { RELIABILITY_BOUNDS, reportFigure } from "../support/reliability_figures.ts";
import { heavyFloods, type Shape } from "./heavy_frames.ts";

const PEAK_LIMIT_MIB = RELIABILITY_BOUNDS.peakRssMiB;
const DRAINED_LIMIT_MIB = RELIABILITY_BOUNDS.drainedRssMiB;
const WITHIN_MS = RELIABILITY_BOUNDS.drainedWithinMs;

/** Each flood, its size, and whether the host's draining (not a slow daemon) sets the pace. */
/** Heavy floods report one figure per shape: the worst of its message kinds. */
type Flood = [FloodKind, number, boolean, Shape?];
const heavy = (shape: Shape, count: number) =>
  heavyFloods(shape).map((kind): Flood => [kind, count, true, shape]);

const FLOODS: Flood[] = [
  [PING, 20_000, true],
  [TOOLS_LIST, 20_000, true],
  [LARGE_CALL, 20_000, true],
  [LARGE_CALL_SLOW_DAEMON, 600, false],
  ...heavy("deep", 300),
  ...heavy("wide", 300),
  ...heavy("at the bound", 30),
];

/** Per shape: the floods still to run, and the worst peak and drain time so far. */
const shapes = new Map<Shape, { left: number; peak: number; worst: string; drainMs: number }>();
for (const [, , , shape] of FLOODS) {
  if (!shape) continue;
  const tally = shapes.get(shape) ?? { left: 0, peak: 0, worst: "", drainMs: 0 };
  tally.left++;
  shapes.set(shape, tally);
}

/** Reports a heavy flood's figure once every message kind of its shape has run. */
async function reportHeavy(shape: Shape, kind: string, count: number, figures: FloodFigures) {
  const tally = shapes.get(shape)!;
  if (figures.peakRssMiB >= tally.peak) {
    tally.peak = figures.peakRssMiB;
    tally.worst = kind;
  }
  tally.drainMs = Math.max(tally.drainMs, figures.msToUnder ?? Infinity);
  if (--tally.left > 0) return;
  const kinds = FLOODS.filter((flood) => flood[3] === shape).length;
  await reportFigure(
    "heavy frames, host reading nothing",
    `peak RSS ${tally.peak} MiB at most (${tally.worst}); under ${DRAINED_LIMIT_MIB} MiB ` +
      `${tally.drainMs} ms or less after draining began`,
    `${count.toLocaleString("en-US")} × ${shape}, in each of ${kinds} message kinds`,
  );
}

for (const [kind, count, hostPaced, shape] of FLOODS) {
  const after = hostPaced ? "of draining" : "of the last answer";
  Deno.test(`${count} × ${kind.name}, host reading nothing: peak ≤ ${PEAK_LIMIT_MIB} MiB, under ${DRAINED_LIMIT_MIB} MiB within ${WITHIN_MS / 1000} s ${after}, each answered once`, async () => {
    const { figures, answers, strays, unnamed, exitCode } = await unreadFlood(
      kind,
      count,
      DRAINED_LIMIT_MIB,
    );
    console.log(`memory-figures ${JSON.stringify(figures)}`);
    const missing = answers.filter((n) => n === 0).length;
    const twice = answers.filter((n) => n > 1).length;
    assert.deepEqual({ missing, twice, strays: strays.slice(0, 3) }, {
      missing: 0,
      twice: 0,
      strays: [],
    });
    if (kind.unnamedAnswers) assert.equal(unnamed, count, "each refused frame answered once");
    assert.equal(exitCode, 0);
    assert.ok(figures.peakRssMiB <= PEAK_LIMIT_MIB, `peak RSS ${figures.peakRssMiB} MiB`);
    const { msToUnder, msToUnderAfterLast } = figures;
    if (hostPaced) {
      assert.ok(
        msToUnder !== null && msToUnder <= WITHIN_MS,
        `RSS under ${DRAINED_LIMIT_MIB} MiB ${msToUnder} ms after draining began`,
      );
    }
    assert.ok(
      msToUnderAfterLast !== null && msToUnderAfterLast <= WITHIN_MS,
      `RSS ${figures.settledRssMiB} MiB ${WITHIN_MS} ms after the last answer`,
    );
    if (shape) return await reportHeavy(shape, kind.name, count, figures);
    const settled = hostPaced ? msToUnder : msToUnderAfterLast;
    await reportFigure(
      hostPaced ? "host reading nothing" : "slow daemon, host reading nothing",
      `peak RSS ${figures.peakRssMiB} MiB; under ${DRAINED_LIMIT_MIB} MiB ${settled} ms ` +
        `after ${hostPaced ? "draining began" : "the last answer"}`,
      `${count.toLocaleString("en-US")} × ${kind.name}`,
    );
  });
}
