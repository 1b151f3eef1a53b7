/**
 * Doctor's verdicts, from the bundle run under the bridge's own confinement: OK against the
 * simulator; with --host, each host's approval words and command (the default left out of the
 * printed command) and MISCONFIGURED, since that grant does not reach the host's files (the
 * launcher plans the grant doctor --host needs: tests/hosts/setup_test.ts); UNAVAILABLE
 * with no daemon, INCOMPATIBLE against another protocol, MISCONFIGURED for a socket outside the
 * grant. Each doctor starts a bridge of its own, so they live in the reliability suite.
 */
import { denoFinished } from "../support/processes.ts";
import assert from "node:assert/strict";
import { registered, runBundled, SOURCE_ENTRY, withSimulator } from "../e2e/harness.ts";
import { confinedFlags } from "../../src/shared/permissions.ts";

Deno.test("doctor: ok against the simulator, unavailable with no daemon, incompatible daemon", async () => {
  const env = await withSimulator();
  const old = await withSimulator({ protocol: { minimum: 2, maximum: 2 } });
  try {
    // Seven doctors that share nothing but the simulators: side by side.
    const [ok, gemini, auto, json, none, incompatible, mis] = await Promise.all([
      runBundled(["doctor", "--host", "codex"], env.socketPath),
      runBundled(["doctor", "--host", "gemini"], env.socketPath),
      runBundled(["doctor", "--host", "claude", "--approval", "auto"], env.socketPath),
      runBundled(["doctor", "--json"], env.socketPath),
      runBundled(["doctor"], "/tmp/portreeve-missing/portreeve.sock"),
      runBundled(["doctor"], old.socketPath),
      denoFinished([
        "run",
        ...confinedFlags("/tmp/granted.sock"),
        SOURCE_ENTRY,
        "doctor",
        "--socket",
        "/tmp/other.sock",
      ]),
    ]);
    assert.equal(ok.code, 5, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /this process may not read the host's files/);
    assert.ok(
      ok.stdout.includes(
        `2025-11-25 initialize): ${registered("full")} tools; tools/list carries ttlMs 0`,
      ),
      ok.stdout,
    );
    assert.match(ok.stdout, /2026-07-28 server\/discover/);
    assert.match(ok.stdout, /host command \(codex\): .*serve --socket/);
    assert.match(
      ok.stdout,
      /approval \(codex\): Approval \(--approval required, the default\): OpenAI Codex asks you through MCP .*`codex exec`/,
    );
    assert.doesNotMatch(
      ok.stdout,
      /host command \(codex\): .*--approval/,
      "the default is not printed",
    );
    assert.match(
      gemini.stdout,
      /approval \(gemini\): .*Gemini CLI cannot ask you through MCP, so each change .* is refused.* --approval auto/,
    );
    assert.equal(auto.code, 5, auto.stdout + auto.stderr);
    assert.match(auto.stdout, /approval \(claude\): Approval \(--approval auto\): .*`claude -p`/);
    assert.match(auto.stdout, /host command \(claude\): .*serve --socket \S+ --approval auto/);
    assert.equal(JSON.parse(json.stdout).verdict, "ok");
    assert.equal(none.code, 3);
    assert.match(none.stdout, /Verdict: UNAVAILABLE/);
    assert.equal(incompatible.code, 4, incompatible.stdout);
    assert.match(incompatible.stdout, /Verdict: INCOMPATIBLE/);
    assert.equal(mis.code, 5, mis.stdout);
  } finally {
    await old.cleanup();
    await env.cleanup();
  }
});
