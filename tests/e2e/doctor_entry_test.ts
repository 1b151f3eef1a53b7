/**
 * `doctor --host` judges the entry the host really has, by running it: against the simulator,
 * an entry that names the daemon's socket is OK; one naming a socket where nothing listens is
 * MISCONFIGURED, naming both sockets, however healthy the bridge itself is (the red team's
 * "Verdict: OK"); no entry is MISSING with `setup --host` as the next step; an entry whose
 * command is gone is MISCONFIGURED. Every `setup` step names the socket where PortReeve answers
 * and keeps the entry's own options, so pasting it never breaks a working entry; an entry that
 * reaches PortReeve where doctor's own socket has nothing is OK, the drift named. Cursor's entry
 * lives in ~/.cursor/mcp.json and it has no command of its own, so a throwaway HOME is all the
 * host there is.
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

function entryFor(socketPath: string, ...more: string[]) {
  return {
    command: Deno.execPath(),
    args: [...bridgeArgs({ socketPath, entry: SOURCE_ENTRY }), "--socket", socketPath, ...more],
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
    assert.ok(
      none.stdout.includes(`setup --host cursor --socket ${env.socketPath}\``),
      none.stdout,
    );

    const gone = await doctorWith(home, env.socketPath, { command: `${home}/gone/portreeve-mcp` });
    assert.equal(gone.code, DOCTOR_EXIT.misconfigured, gone.stdout);
    assert.match(gone.stdout, /gone\/portreeve-mcp does not exist/);

    // An older install's entry, its command gone: the fix keeps its socket and its options.
    const older = await doctorWith(home, `${env.dir}/nothing.sock`, {
      command: `${home}/gone/portreeve-mcp`,
      args: ["serve", "--socket", env.socketPath, "--approval", "auto", "--label", "team"],
    });
    assert.equal(older.code, DOCTOR_EXIT.misconfigured, older.stdout);
    assert.ok(
      older.stdout.includes(
        `setup --host cursor --socket ${env.socketPath} --label team --approval auto\``,
      ),
      older.stdout,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
    await env.cleanup();
  }
});

Deno.test("doctor --host: an entry that reaches PortReeve where doctor's socket has nothing is OK", async () => {
  const env = await withSimulator();
  const home = await Deno.makeTempDir({ prefix: "prmcp-doctor-home-" });
  try {
    const nothing = `${env.dir}/nothing/portreeve.sock`;
    const works = await doctorWith(home, nothing, entryFor(env.socketPath, "--toolset", "read"));
    assert.equal(works.code, DOCTOR_EXIT.ok, works.stdout);
    assert.match(works.stdout, /\[warn\] daemon: Nothing answers at /);
    assert.ok(
      works.stdout.includes(`the entry reaches PortReeve at ${env.socketPath}: give doctor`),
      works.stdout,
    );
    assert.doesNotMatch(works.stdout, /Start PortReeve/);
    // What setup would write keeps the entry's socket and toolset (the command is this test's).
    assert.match(works.stdout, /setup would write: .* serve --socket \S+ --toolset read\n/);

    // Nothing answers anywhere: one next step to start PortReeve, said once.
    const neither = await doctorWith(home, nothing, entryFor(`${env.dir}/moved/portreeve.sock`));
    assert.equal(neither.code, DOCTOR_EXIT.unavailable, neither.stdout);
    assert.equal(neither.stdout.split("Start PortReeve").length, 2, neither.stdout);
  } finally {
    await Deno.remove(home, { recursive: true });
    await env.cleanup();
  }
});
