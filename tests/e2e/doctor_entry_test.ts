/**
 * `doctor --host` judges the entry the host really has, by running it: against the simulator,
 * an entry that names the daemon's socket is OK; one naming a socket where nothing listens is
 * MISCONFIGURED, naming both sockets, however healthy the bridge itself is (the red team's
 * "Verdict: OK"); no entry is MISSING with `setup --host` as the next step; an entry whose
 * command is gone is MISCONFIGURED. Cursor's entry lives in ~/.cursor/mcp.json and it has no
 * command of its own, so a throwaway HOME is all the host there is.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runDoctor } from "../../src/cli/doctor.ts";
import { DOCTOR_EXIT } from "../../src/cli/doctor_report.ts";
import type { PlaceContext } from "../../src/profiles/entry_places.ts";
import { bridgeArgs, SOURCE_ENTRY, withSimulator } from "./harness.ts";

async function doctorWith(home: string, socketPath: string, entry: unknown) {
  const file = join(home, ".cursor", "mcp.json");
  await Deno.mkdir(join(home, ".cursor"), { recursive: true });
  if (entry === undefined) await Deno.remove(file).catch(() => {});
  else await Deno.writeTextFile(file, JSON.stringify({ mcpServers: { portreeve: entry } }));
  const context: PlaceContext = {
    env: (name) => name === "HOME" ? home : undefined,
    os: "linux",
    cwd: join(home, "work"),
  };
  let stdout = "";
  const code = await runDoctor(
    ["--host", "cursor", "--socket", socketPath],
    { stdout: (text) => stdout += text, stderr: () => {} },
    context,
  );
  return { code, stdout };
}

function entryFor(socketPath: string) {
  return {
    command: Deno.execPath(),
    args: [...bridgeArgs({ socketPath, entry: SOURCE_ENTRY }), "--socket", socketPath],
    env: { DENO_NO_UPDATE_CHECK: "1" },
  };
}

Deno.test("doctor --host: the host's own entry decides the verdict", async () => {
  const env = await withSimulator();
  const home = await Deno.makeTempDir({ prefix: "prmcp-doctor-home-" });
  try {
    const good = await doctorWith(home, env.socketPath, entryFor(env.socketPath));
    assert.equal(good.code, DOCTOR_EXIT.ok, good.stdout);
    assert.match(good.stdout, /\[ok\] {3}through the entry: .*PortReeve/);

    const elsewhere = `${env.dir}/moved/portreeve.sock`;
    const moved = await doctorWith(home, env.socketPath, entryFor(elsewhere));
    assert.equal(moved.code, DOCTOR_EXIT.misconfigured, moved.stdout);
    assert.doesNotMatch(moved.stdout, /Verdict: OK/);
    assert.ok(moved.stdout.includes(`uses ${elsewhere}`), moved.stdout);
    assert.ok(moved.stdout.includes(`the daemon answers at ${env.socketPath}`), moved.stdout);
    assert.match(moved.stdout, /Verdict: MISCONFIGURED\. Run `.*setup --host cursor --socket /);

    const none = await doctorWith(home, env.socketPath, undefined);
    assert.equal(none.code, DOCTOR_EXIT.missing, none.stdout);
    assert.match(none.stdout, /Cursor has no portreeve entry/);
    assert.match(none.stdout, /Verdict: MISSING\. Run `.*setup --host cursor`/);

    const gone = await doctorWith(home, env.socketPath, { command: `${home}/gone/portreeve-mcp` });
    assert.equal(gone.code, DOCTOR_EXIT.misconfigured, gone.stdout);
    assert.match(gone.stdout, /gone\/portreeve-mcp does not exist/);
  } finally {
    await Deno.remove(home, { recursive: true });
    await env.cleanup();
  }
});
