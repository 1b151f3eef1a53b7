/**
 * Figures from the bench are never typed by hand: docs/performance.md and the README's blocks
 * (the comparison with the reference bridge, the test command's duration) must be exactly what
 * scripts/bench/report.ts renders from the last run's docs/performance.json.
 */
import assert from "node:assert/strict";
import {
  BENCH_JSON,
  BenchRun,
  benchSummary,
  burnersText,
  duration,
  performanceDoc,
  testTimeLine,
} from "../../../scripts/bench/report.ts";
import { normaliseMarkdown, sectionOf } from "../../../scripts/doc_blocks.ts";
import { BURNERS_PER_CORE, burnersFor } from "../../../scripts/bench/test_time.ts";

const ROOT = new URL("../../../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));
const run = BenchRun.parse(JSON.parse(await read(BENCH_JSON)));

/** `text` as `deno fmt` leaves markdown. */
async function formatted(text: string): Promise<string> {
  const fmt = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    stdin: "piped",
    stdout: "piped",
    cwd: ROOT,
  }).spawn();
  const writer = fmt.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  return new TextDecoder().decode((await fmt.output()).stdout);
}

Deno.test("docs/performance.md is rendered from the last bench run (run `deno task bench`)", async () => {
  assert.equal(await read("docs/performance.md"), await formatted(performanceDoc(run)));
});

Deno.test("the README's bench figures and test duration are the last bench run's", async () => {
  const readme = await read("README.md");
  for (
    const [name, lines] of [["bench-summary", benchSummary(run)], [
      "test-time",
      testTimeLine(run),
    ]] as const
  ) {
    const block = sectionOf(readme, name);
    assert.ok(block !== undefined, `README.md has the ${name} block`);
    assert.equal(
      normaliseMarkdown(block).replace(/\s+/g, " "),
      lines.join(" ").replace(/\s+/g, " "),
      name,
    );
  }
});

Deno.test("the test command's duration reads as a person would say it", () => {
  assert.equal(duration(42.4), "42 s");
  assert.equal(duration(134.2), "2 min 14 s");
  assert.equal(duration(119.6), "2 min 0 s");
});

Deno.test("the busy run: four CPU-bound processes per core, and the figures say how many", () => {
  assert.equal(BURNERS_PER_CORE, 4);
  assert.equal(burnersFor(2), 8, "8 on this project's two-core machine");
  assert.equal(burnersText(8, 2), "8 CPU-bound processes, 4 per core");
  const busy = { ...run.testSuite, busy: { burners: 8, seconds: 170, passed: 1, failed: 0 } };
  const line = testTimeLine({ ...run, testSuite: busy }).join(" ");
  assert.match(line, new RegExp(`beside 8 CPU-bound processes, ${8 / run.machine.cores} per core`));
});
