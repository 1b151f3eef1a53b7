/**
 * No test depends on wall-clock time. In every file under tests/ this fails on a real sleep
 * or timer (a global `setTimeout`/`setInterval` call, node:timers), an elapsed-time reading
 * (`performance.now()`, `Date.now()` minus another reading), a real-clock margin (`Date.now()`
 * or `new Date()` plus or minus an amount: a deadline or expiry that holds only while the
 * machine is fast enough, wherever it is then compared), a comparison with a clock reading, or
 * with a name that holds one, a timed guard (`AbortSignal.timeout`) and the MCP SDK's `Client`,
 * whose requests carry a 60 s deadline of their own (tests/support/host_client.ts waits as long
 * as the bridge takes) — unless the file is listed below with the reason it needs time, or the
 * line (or a comment line right above it) says `// timing-ok: <why>` (a clock reading that
 * measures no duration and bounds nothing). The fast suite (tests/unit, tests/e2e) waits for events instead
 * (tests/support/watched.ts, manual_timers.ts, fake_clock.ts, the simulator's `arrived`, a
 * peer's `when`) and may not import the timed helpers at all.
 */
import assert from "node:assert/strict";
import { Client, type Transport } from "@modelcontextprotocol/client";
import { withSimulator } from "../../e2e/harness.ts";
import { seeder } from "../../e2e/seed.ts";
import { DaemonClock, DAY_MS } from "../../support/daemon_clock.ts";
import { HOST_WAITS, HostClient } from "../../support/host_client.ts";

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

/** A reading of the real clock: `Date.now()`, or `new Date()` (as is, or as a number). */
const NOW = String.raw`(?:Date\.now\(\)|new Date\(\)(?:\.(?:getTime|valueOf)\(\))?)`;
/** A comparison operator (not an arrow's `=>`, nor part of `<<`, `>>`). */
const COMPARE = String.raw`(?<![=<>-])(?:<=?|>=?)(?![=<>])`;

/** What makes a line depend on time; each names what it found. */
const RULES: [RegExp, string][] = [
  [/(^|[^.\w])set(Timeout|Interval)\s*\(|globalThis\.set(Timeout|Interval)\s*\(/, "a real timer"],
  [/from "node:timers(\/promises)?"/, "a real timer"],
  [/performance\.now\(\)/, "an elapsed-time reading"],
  [new RegExp(String.raw`${NOW}\s*-\s*[A-Za-z_$(#]`), "an elapsed-time reading"],
  [new RegExp(String.raw`[\w)\]]\s*-\s*${NOW}`), "an elapsed-time reading"],
  [new RegExp(String.raw`${NOW}\s*(?:\+|-\s*[\d.])|[\w)\]]\s*\+\s*${NOW}`), "a real-clock margin"],
  [new RegExp(String.raw`${NOW}\s*${COMPARE}|${COMPARE}\s*${NOW}`), "a clock comparison"],
  [/AbortSignal\.timeout\s*\(/, "a timed guard"],
  [/\bnew Client\s*\(/, "an MCP client with the SDK's own 60 s deadline (use HostClient)"],
  [/from "[./]*\/?support\/timed\.ts"|from "\.\/timed\.ts"/, "the timed helpers"],
];

/** A name given a clock reading (`const started = Date.now()`): comparing it is timing too. */
const CLOCK_NAME = new RegExp(
  String.raw`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=[^;]*(?:${NOW}|performance\.now\(\))`,
);

/** A line that compares `name` (or `name` plus or minus an amount) with something. */
function comparesName(name: string): RegExp {
  const amount = String.raw`(?:\s*[-+]\s*[\w.]+)?`;
  return new RegExp(
    String.raw`(?<![\w$.])${name}\b${amount}\s*${COMPARE}|${COMPARE}\s*${name}\b(?!\s*\()`,
  );
}

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
  const source = text.split("\n");
  const reason = (line = "") => /\/\/ timing-ok: \S/.test(line);
  // The reason goes on the line, or on a comment line right above it.
  const excused = (index: number) =>
    reason(source[index]) ||
    (/^\s*\/\//.test(source[index - 1] ?? "") && reason(source[index - 1]));
  const lines = source.map((line, index) =>
    excused(index) || METHOD_DEFINITION.test(line)
      ? ""
      : line.replace(/\/\/.*$/, "").replace(/^\s*\/?\*.*$/, "")
  );
  const named = lines.flatMap((code) => CLOCK_NAME.exec(code)?.[1] ?? []);
  const rules: [RegExp, string][] = [
    ...RULES,
    ...named.map((name): [RegExp, string] => [
      comparesName(name),
      `a comparison with a clock reading (${name})`,
    ]),
  ];
  return lines.flatMap((code, index) =>
    rules.filter(([rule]) => rule.test(code)).map(([, what]) =>
      `line ${index + 1}: ${what}: ${source[index].trim()}`
    )
  );
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
    "globalThis.setTimeout(done, 100);",
    'import { setTimeout as sleep } from "node:timers/promises";',
    "const started = performance.now();",
    "assert.ok(Date.now() - started < 2000);",
    "const age = new Date().getTime() - born;",
    "while (!done && Date.now() < deadline) {}",
    "if (new Date() > deadline) return;",
    "const left = deadline - Date.now();",
    // Real-clock margins: bounds that hold only while the machine is fast enough.
    "if (Date.now() + 100 > deadline) fail();",
    "const deadline = 15_000 + Date.now();",
    "expiresAt: new Date(Date.now() + 2_000).toISOString(),",
    "custodyDueAt: Date.now() + ttlMs,",
    'openQuestion("r1", Date.now() - 1);',
    // A clock reading given a name, compared with a bound lines later.
    "const before = Date.now();\nconst lease = await acquire();\nassert.ok(until >= before + 1500);",
    "signal: AbortSignal.timeout(60_000),",
    'const client = new Client({ name: "e2e", version: "0" });',
  ];
  for (const text of refused) assert.equal(timingFindings(text).length, 1, text);
  const allowed = [
    "clock.setTimeout(() => fired.push(1), 20);",
    "  setTimeout(fn: () => void, ms: number): number {",
    "const now = Date.now(); // timing-ok: a timestamp for a record",
    "// timing-ok: an expiry an hour ahead, which custody only holds\nhold(Date.now() + 3_600_000);",
    "const at = new Date().toISOString();\nrecords.push({ at, kind: records.length > 2 });",
    "const clock = { now: () => Date.now() };\nassert.ok(clock.now() > 0 && fired >= 1);",
    'const client = new HostClient({ name: "e2e", version: "0" });',
  ];
  for (const text of allowed) assert.deepEqual(timingFindings(text), [], text);
});

/**
 * The fast suite's daemon (the e2e harness's `withSimulator`): a day ahead of the bridge's
 * clock, and nothing it grants lapses while a slow machine lets real time pass, only when the
 * test advances it.
 */
Deno.test("timing: the e2e harness's daemon is a day ahead, and lapses only on the test's advance", async () => {
  const env = await withSimulator();
  const seed = seeder(env.socketPath);
  try {
    const clock = env.time.clock;
    assert.ok(clock instanceof DaemonClock, "the harness's own clock");
    const before = Date.now(); // timing-ok: read before the daemon's, so never after it
    const lease = await seed.post("/v1/leases/acquire", {
      claim: {
        project: "p",
        workspaceRoot: env.dir,
        component: "c",
        endpoint: "http",
        transport: "tcp",
      },
      allocation: { mode: "sticky", replacementPolicy: "never" },
    });
    const expiresAt = Date.parse(lease.expiresAt as string);
    // timing-ok: a bound a slow machine only widens (the bridge reads a day left, or more)
    assert.ok(expiresAt - before >= DAY_MS, "a day left by the bridge's clock");
    const renew = () =>
      seed.post(`/v1/leases/${lease.leaseId}/renew`, { leaseToken: lease.leaseToken });
    clock.pass(60 * 60_000); // an hour of a slow machine's time: nothing lapses
    assert.match((await renew()).expiresAt as string, /^\d{4}-/);
    env.sim.control.advance(16_000); // the test moves time past the TTL: the lease lapses
    await assert.rejects(renew(), /lease_not_pending/);
  } finally {
    seed.close();
    await env.cleanup();
  }
});

Deno.test("timing: the tests' MCP host gives the bridge no deadline of its own", async () => {
  const sent: unknown[] = [];
  const { request, connect } = Client.prototype;
  // What HostClient hands the SDK's own request and connect (neither runs here).
  Client.prototype.request = function (_request: unknown, second?: unknown, third?: unknown) {
    sent.push(third ?? second);
    return Promise.resolve({});
  } as typeof request;
  Client.prototype.connect = function (_transport: unknown, options?: unknown) {
    sent.push(options);
    return Promise.resolve();
  } as typeof connect;
  try {
    const client = new HostClient({ name: "timing", version: "0" });
    await client.ping();
    await client.connect({} as Transport);
    await client.request({ method: "ping" }, { timeout: 5 });
    assert.deepEqual(sent, [{ timeout: HOST_WAITS }, { timeout: HOST_WAITS }, { timeout: 5 }]);
  } finally {
    Object.assign(Client.prototype, { request, connect });
  }
});
