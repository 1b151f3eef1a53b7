/**
 * Reading the entry a host has, for every host profile: the entry `config` renders, written
 * where setup writes it, is found there and read back through the profile's own template with
 * no difference; the host's own command, where the profile names one, is that host's program
 * and its answer is read (the json forms give the entry, Claude Code's Scope line chooses the
 * file, a status line gives the status); a host program that is not installed leaves the files
 * to decide; Gemini CLI's folder trust follows its trustedFolders.json.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { HOST_PROFILES, renderEntry } from "../../../../src/profiles/mod.ts";
import { entryPlaces, type PlaceContext } from "../../../../src/profiles/entry_places.ts";
import { readEntry } from "../../../../src/cli/host/read_entry.ts";
import type { ProgramRun } from "../../../../src/cli/host/host_program.ts";
import { setJsonValue } from "../../../../src/cli/host/json_edit.ts";
import { setTomlValue } from "../../../../src/cli/host/toml_edit.ts";
import { detectInstallation } from "../../../../src/shared/installation.ts";
import { locateSocket } from "../../../../src/shared/socket_location.ts";

const missing = (argv: readonly string[]): Promise<ProgramRun> =>
  Promise.resolve({ kind: "missing", program: argv[0] });

function said(stdout: string, code = 0) {
  return (): Promise<ProgramRun> => Promise.resolve({ kind: "ran", code, stdout, stderr: "" });
}

async function withHome(test: (home: string, context: PlaceContext) => Promise<void>) {
  const home = await Deno.makeTempDir({ prefix: "prmcp-read-" });
  try {
    await test(home, {
      env: (n) => n === "HOME" ? home : undefined,
      os: "linux",
      cwd: `${home}/work`,
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("read entry: every host's rendered entry is found where setup writes it, read back whole", async () => {
  for (const profile of HOST_PROFILES) {
    if (profile.entry === null) {
      assert.equal(profile.id, "generic", "only generic has no place for its entry");
      continue;
    }
    const program = profile.setupCommand?.[0];
    if (profile.entry.show !== null) {
      assert.equal(profile.entry.show.command[0], program, `${profile.id}: the host's own program`);
    }
    await withHome(async (home, context) => {
      const entry = renderEntry(
        { host: profile.id, portable: false, socket: locateSocket(`${home}/p.sock`) },
        detectInstallation(),
      );
      const place = entryPlaces(profile, context).find((p) => p.setup)!;
      const path = [...place.at, "portreeve"];
      const text = place.file.endsWith(".toml")
        ? setTomlValue("", path, entry.server, place.file)
        : setJsonValue("", path, entry.server, place.file);
      await Deno.mkdir(dirname(place.file), { recursive: true });
      await Deno.writeTextFile(place.file, text);
      const reading = await readEntry(profile, context, missing);
      assert.deepEqual(reading.problems, [], profile.id);
      assert.ok(reading.entry !== null, `${profile.id}: not found in ${place.file}`);
      assert.deepEqual(
        reading.entry.launch,
        { command: entry.command, args: entry.args, env: entry.env },
        profile.id,
      );
      assert.deepEqual(reading.entry.differences, [], profile.id);
      assert.equal(reading.entry.file, place.file);
      if (profile.entry!.show !== null) assert.match(reading.host?.note ?? "", /not on PATH/);
    });
  }
});

Deno.test("read entry: what the host's own command says chooses the entry", async () => {
  await withHome(async (home, context) => {
    const claude = HOST_PROFILES.find((p) => p.id === "claude")!;
    const user = { command: "/user/bin", args: ["serve"] };
    const local = { command: "/local/bin", args: ["serve"] };
    await Deno.writeTextFile(
      join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: { portreeve: user },
        projects: { [`${home}/work`]: { mcpServers: { portreeve: local } } },
      }),
    );
    const asUser = await readEntry(
      claude,
      context,
      said("portreeve:\n  Scope: User config\n  Status: ✔ Connected\n"),
    );
    assert.equal(asUser.entry?.launch.command, "/user/bin");
    assert.equal(asUser.host?.status, "✔ Connected");
    assert.equal(asUser.unused[0]?.scope, "local");
    const asLocal = await readEntry(claude, context, said("portreeve:\n  Scope: Local config\n"));
    assert.equal(asLocal.entry?.launch.command, "/local/bin");
    const none = await readEntry(
      claude,
      context,
      said("No MCP server found with name: portreeve", 1),
    );
    assert.equal(none.entry, null);
    assert.equal(none.host?.note, "has no portreeve entry");

    const codex = HOST_PROFILES.find((p) => p.id === "codex")!;
    const json = JSON.stringify({
      name: "portreeve",
      enabled: false,
      transport: { type: "stdio", command: "/c", args: ["serve"], env: {} },
    });
    const fromCodex = await readEntry(codex, context, said(json));
    assert.equal(fromCodex.entry?.launch.command, "/c");
    assert.equal(fromCodex.host?.status, "disabled");

    const gemini = HOST_PROFILES.find((p) => p.id === "gemini")!;
    await Deno.mkdir(join(home, ".gemini"));
    await Deno.writeTextFile(
      join(home, ".gemini/settings.json"),
      JSON.stringify({ mcpServers: { portreeve: user } }),
    );
    const listed = await readEntry(
      gemini,
      context,
      said("○ portreeve: /user/bin serve (stdio) - Disabled\n"),
    );
    assert.equal(listed.host?.status, "Disabled");
    assert.deepEqual(listed.trust, {
      trusted: false,
      detail: `${home}/.gemini/trustedFolders.json does not trust ${home}/work`,
    });
    await Deno.writeTextFile(
      join(home, ".gemini/trustedFolders.json"),
      JSON.stringify({ [home]: "TRUST_FOLDER" }),
    );
    assert.equal((await readEntry(gemini, context, missing)).trust?.trusted, true);
    await Deno.writeTextFile(
      join(home, ".gemini/trustedFolders.json"),
      JSON.stringify({ [`${home}/work`]: "DO_NOT_TRUST", [home]: "TRUST_FOLDER" }),
    );
    assert.equal((await readEntry(gemini, context, missing)).trust?.trusted, false);
  });
});

Deno.test("read entry: a field setup writes otherwise, a disabled entry and an unreadable file are named", async () => {
  await withHome(async (home, context) => {
    const cline = HOST_PROFILES.find((p) => p.id === "cline")!;
    const file = join(home, ".cline/data/settings/cline_mcp_settings.json");
    await Deno.mkdir(dirname(file), { recursive: true });
    await Deno.writeTextFile(
      file,
      JSON.stringify({
        mcpServers: { portreeve: { transport: { command: "/x", args: [] }, disabled: true } },
      }),
    );
    const reading = await readEntry(cline, context, missing);
    assert.deepEqual(reading.entry?.differences, [
      "it is disabled, so the host does not start it",
      "it has no timeout (setup writes 660)",
    ]);
    // Cline reads plain JSON: a comment means it takes no server from the file.
    await Deno.writeTextFile(
      file,
      '{\n  "mcpServers": {\n    "portreeve": { "command": "/x" } // mine\n  }\n}',
    );
    const commented = await readEntry(cline, context, missing);
    assert.deepEqual(commented.refused, [{ file, line: 3, column: 38, what: "a comment" }]);
    assert.equal(commented.entry?.launch.command, "/x");
    await Deno.writeTextFile(file, '{\n  "mcpServers": {,\n}');
    const broken = await readEntry(cline, context, missing);
    assert.equal(broken.entry, null);
    assert.match(broken.problems[0], /cline_mcp_settings\.json:2:\d+: not valid JSON/);
  });
});
