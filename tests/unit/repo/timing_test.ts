/**
 * No test depends on wall-clock time. In every file under tests/ this fails on a real sleep
 * or timer (a global `setTimeout`/`setInterval` call), an elapsed-time reading
 * (`performance.now()`, `Date.now()` minus or compared with another reading), and a timed
 * guard (`AbortSignal.timeout`) — unless the file is listed below with the reason it needs
 * time, or the line says `// timing-ok: <why>` (a clock reading that measures no duration).
 * The fast suite (tests/unit, tests/e2e) waits for events instead (tests/support/watched.ts,
 * manual_timers.ts, the simulator's `arrived`, a peer's `when`) and may not import the timed
 * helpers at all.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../../", import.meta.url);

/** Files that need real time, and why. Nothing of the fast suite is here but helpers. */
const NEEDS_TIME: Record<string, string> = {
  "tests/support/watched.ts": "tick(): a zero-delay turn of the event loop, no time waited",
  "tests/support/timed.ts": "the real waits of the slow suites, imported nowhere fast",
  "tests/support/raw_peer.ts":
    "a response timeout only when a caller passes timeoutMs (bench, reliability, load)",
  "tests/support/many_agents.ts": "the load scenario measures call times for test:load and bench",
  "tests/support/crowd.ts": "the crowd scenario measures call waits for test:load and the bench",
  "tests/load/crowd_test.ts": "waits for the simulator program's socket to appear (test:load)",
  "tests/load/unread_host.ts": "measures memory over time while a host reads nothing (test:load)",
  "tests/reliability/bounds_test.ts":
    "records how long bounded answers take; waits out duplicate answers (reliability.md)",
  "tests/reliability/cancellation_test.ts":
    "records how soon a cancellation lands; waits out late daemon answers",
  "tests/reliability/credentials_test.ts": "lets real renewals run on a short lease TTL",
  "tests/reliability/fuzz_test.ts": "gives a flood's stragglers a moment before the sentinel",
  "tests/reliability/daemon_faults_test.ts": "records how long each daemon fault takes to surface",
  "tests/reliability/flood_test.ts": "records burst times; waits out late duplicate answers",
  "tests/reliability/host_death_test.ts": "records how soon the bridge goes after its host dies",
  "tests/reliability/load.ts": "paces a renewal load at a fixed rate",
  "tests/reliability/soak_test.ts": "records the soak's duration",
  "tests/hosts/codex_app_server.ts": "bounds a real Codex process, which may hang",
  "tests/hosts/install.ts": "bounds an npm install of a real host program",
  "tests/hosts/rig.ts": "bounds real host programs, which may hang",
  "tests/hosts/stdio_tap.ts": "gives a real host's last frames a moment to pass the tap",
  "tests/unit/repo/timing_test.ts": "this check's own examples of what it refuses",
};

/** What makes a line depend on time; each names what it found. */
const RULES: [RegExp, string][] = [
  [/(^|[^.\w])set(Timeout|Interval)\s*\(/, "a real timer"],
  [/performance\.now\(\)/, "an elapsed-time reading"],
  [/Date\.now\(\)\s*-\s*[A-Za-z_(]/, "an elapsed-time reading"],
  [/[\w)]\s*-\s*Date\.now\(\)/, "an elapsed-time reading"],
  [/Date\.now\(\)\s*[<>]|[<>]=?\s*Date\.now\(\)/, "a clock comparison"],
  [/AbortSignal\.timeout\s*\(/, "a timed guard"],
  [/from "[./]*\/?support\/timed\.ts"|from "\.\/timed\.ts"/, "the timed helpers"],
];

/** A method named setTimeout (a fake clock's own), not a call of the global one. */
const METHOD_DEFINITION = /^\s*(set|clear)(Timeout|Interval)\s*\(.*\)\s*(:\s*[\w<>]+\s*)?\{\s*$/;

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) yield* tsFiles(`${path}/`);
    else if (path.endsWith(".ts")) yield path;
  }
}

/** Every line of `text` that depends on time, with why. */
export function timingFindings(text: string): string[] {
  return text.split("\n").flatMap((line, index) => {
    if (/\/\/ timing-ok: \S/.test(line) || METHOD_DEFINITION.test(line)) return [];
    const code = line.replace(/\/\/.*$/, "").replace(/^\s*\/?\*.*$/, "");
    return RULES.filter(([rule]) => rule.test(code)).map(([, what]) =>
      `line ${index + 1}: ${what}: ${line.trim()}`
    );
  });
}

const files = await Array.fromAsync(tsFiles("tests/"));

Deno.test("timing: no test file sleeps, measures elapsed time or races a timer, unless listed", async () => {
  const found: string[] = [];
  for (const file of files) {
    if (Object.hasOwn(NEEDS_TIME, file)) continue;
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const finding of timingFindings(text)) found.push(`${file} ${finding}`);
  }
  assert.deepEqual(found, []);
});

Deno.test("timing: every listed file exists and still needs time", async () => {
  for (const file of Object.keys(NEEDS_TIME)) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    assert.ok(timingFindings(text).length > 0, `${file} no longer needs its place on the list`);
  }
});

Deno.test("timing: the fast suite never imports the timed helpers", async () => {
  const fast = files.filter((file) => /^tests\/(unit|e2e)\//.test(file));
  for (const file of fast) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    assert.doesNotMatch(text, /from "[./]*\/support\/timed\.ts"/, file);
  }
});

Deno.test("timing check: what it must refuse, it refuses", () => {
  const refused = [
    "await new Promise((r) => setTimeout(r, 50));",
    "const id = setInterval(tick, 10);",
    "const started = performance.now();",
    "assert.ok(Date.now() - started < 2000);",
    "while (!done && Date.now() < deadline) {}",
    "const left = deadline - Date.now();",
    "signal: AbortSignal.timeout(60_000),",
  ];
  for (const line of refused) assert.equal(timingFindings(line).length, 1, line);
  const allowed = [
    "clock.setTimeout(() => fired.push(1), 20);",
    "  setTimeout(fn: () => void, ms: number): number {",
    "expiresAt: Date.now() + 15_000,",
    'openQuestion("r1", Date.now() - 1);',
    "const now = Date.now(); // timing-ok: a timestamp for a record",
  ];
  for (const line of allowed) assert.deepEqual(timingFindings(line), [], line);
});
