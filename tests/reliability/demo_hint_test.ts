/**
 * Doctor's unavailable verdict names PortReeve and a demo that runs a SIMULATED daemon on a
 * temporary socket, never the user's: the demo it prints is run as printed (a whole MCP
 * session, so it lives in the reliability suite).
 */
import { finished } from "../support/processes.ts";
import assert from "node:assert/strict";
import { SOURCE_ENTRY } from "../e2e/harness.ts";
import { childEnv, confinedFlags } from "../../src/shared/permissions.ts";

function quotedCommands(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

function sh(command: string, env: Record<string, string> = {}) {
  return finished("sh", ["-c", command], { env: childEnv(env) });
}

Deno.test("hints: doctor tells a person how to try the bridge: a demo on a temporary socket, as printed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-hint-" });
  const socket = `${dir}/portreeve.sock`;
  try {
    const doctor = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...confinedFlags(socket), SOURCE_ENTRY, "doctor", "--socket", socket],
      env: childEnv({ PORTREEVE_SOCKET: socket }),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const printed = new TextDecoder().decode(doctor.stdout);
    assert.equal(doctor.code, 3, printed);
    const verdict = printed.slice(printed.indexOf("Verdict:"));
    assert.match(verdict, /https:\/\/github\.com\/TrentBrown\/portreeve/);
    assert.ok(!verdict.includes("simulator --socket"), "never the simulator on a socket of ours");
    const demo = quotedCommands(verdict).find((c) => c.endsWith(" task demo"));
    assert.ok(demo, verdict);
    const run = await sh(demo);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /SIMULATED/);
    const used = run.stdout.match(/simulator socket \(\$SOCK below\): (\S+)/)?.[1];
    assert.ok(used?.includes("/portreeve-demo-") && used !== socket, `a temporary socket: ${used}`);
    assert.equal(await Deno.lstat(socket).then(() => true, () => false), false, "ours untouched");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
