/**
 * Each command's permission grant, pinned. serve, config and doctor without a host (or with
 * generic) get `confinedFlags(socket)` and nothing else; `doctor --host` and `setup --host`
 * get, for every host profile, exactly: reading the files its places name, the environment
 * variables they read, and then doctor the bridge's confinement plus running the host's own
 * program and the entries' commands; setup writing the one file it edits (with its temporary
 * and backup) or running the host's own program, and no socket. No step ever carries a bare or
 * empty `--allow-*` flag, which would grant everything.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HOST_PROFILES } from "../../../../src/profiles/hosts.ts";
import {
  entryPlaces,
  type PlaceContext,
  placeVariables,
} from "../../../../src/profiles/entry_places.ts";
import {
  needsHostGrant,
  nextStep,
  planFlags,
  planVariables,
} from "../../../../src/cli/host/grant.ts";
import { confinedFlags, fetchlessFlags } from "../../../../src/shared/permissions.ts";
import { SOCKET_ENV_VARS } from "../../../../src/shared/socket_location.ts";
import { writtenPaths } from "../../../../src/cli/host/file_write.ts";

const SOCKET = "/run/user/1000/portreeve.sock";

function noWideGrant(flags: readonly string[], where: string): void {
  for (const flag of flags) {
    assert.ok(!/^--allow-[a-z]+=?$/.test(flag), `${where}: ${flag} grants everything`);
    assert.ok(flag !== "-A" && !flag.startsWith("--allow-all"), `${where}: ${flag}`);
  }
}

Deno.test("grant: commands without a host keep the bridge's confinement", async () => {
  const context: PlaceContext = { env: () => undefined, os: "linux", cwd: null };
  for (
    const args of [
      ["serve"],
      ["config", "--host", "claude"],
      ["doctor"],
      ["doctor", "--host", "generic"],
      ["doctor", "--json"],
      ["setup"],
      ["--version"],
    ]
  ) {
    assert.equal(needsHostGrant(args), false, args.join(" "));
    const step = await nextStep([...args, "--socket", SOCKET], "bundle", context);
    assert.deepEqual(step, { next: "run", flags: confinedFlags(SOCKET, "bundle") }, args.join(" "));
  }
  assert.equal(needsHostGrant(["doctor", "--host=claude"]), true);
  assert.equal(needsHostGrant(["setup", "--host", "codex"]), true);
  assert.equal(needsHostGrant(["serve", "--host", "codex"]), false);
  assert.equal(needsHostGrant(["doctor", "--", "--host", "codex"]), false);
});

Deno.test("grant: the first step reads only the environment its places name", () => {
  const names = planVariables();
  for (const name of SOCKET_ENV_VARS) assert.ok(names.includes(name));
  for (const profile of HOST_PROFILES) {
    for (const name of placeVariables(profile)) assert.ok(names.includes(name), name);
  }
  assert.deepEqual(planFlags("bundle"), [
    `--allow-env=${names.join(",")}`,
    ...fetchlessFlags("bundle"),
  ]);
  noWideGrant(planFlags("source"), "planFlags");
});

Deno.test("grant: every host's doctor and setup steps, pinned", async () => {
  const home = await Deno.makeTempDir({ prefix: "prmcp-grant-" });
  try {
    const context: PlaceContext = {
      env: (name) => name === "HOME" ? home : undefined,
      os: "linux",
      cwd: join(home, "work"),
    };
    for (const profile of HOST_PROFILES.filter((p) => p.entry !== null)) {
      const files = [...new Set(entryPlaces(profile, context).map((place) => place.file))];
      if (profile.entry!.trustedFolders) files.push(join(home, ".gemini/trustedFolders.json"));
      const env = `--allow-env=${
        [...new Set([...SOCKET_ENV_VARS, ...placeVariables(profile)])].sort().join(",")
      }`;
      const read = `--allow-read=${files.join(",")}`;
      const unread = await nextStep(
        ["doctor", "--host", profile.id, "--socket", SOCKET],
        "bundle",
        context,
        () => false,
      );
      assert.deepEqual(
        unread,
        { next: "plan", flags: [...fetchlessFlags("bundle"), env, read] },
        profile.id,
      );

      const doctor = await nextStep(
        ["doctor", "--host", profile.id, "--socket", SOCKET],
        "bundle",
        context,
        () => true,
      );
      const program = profile.entry!.show?.command[0];
      assert.deepEqual(doctor, {
        next: "run",
        flags: [
          ...confinedFlags(SOCKET, "bundle"),
          env,
          read,
          ...(program === undefined ? [] : [`--allow-run=${program}`]),
        ],
      }, profile.id);

      const setup = await nextStep(["setup", "--host", profile.id], "bundle", context, () => true);
      const target = entryPlaces(profile, context).find((place) => place.setup)!.file;
      const writes = profile.entry!.setup === "file"
        ? [
          `--allow-read=${writtenPaths(target).join(",")}`,
          `--allow-write=${writtenPaths(target).join(",")}`,
        ]
        : [`--allow-run=${profile.setupCommand![0]}`];
      assert.deepEqual(setup, {
        next: "run",
        flags: [...fetchlessFlags("bundle"), env, read, ...writes],
      }, profile.id);
      assert.ok(
        !setup.flags.some((flag) => flag.includes(SOCKET)),
        `${profile.id}: setup reaches no socket`,
      );
      for (const step of [unread, doctor, setup]) noWideGrant(step.flags, profile.id);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("grant: doctor may run the commands the host's entries start", async () => {
  const home = await Deno.makeTempDir({ prefix: "prmcp-grant-" });
  try {
    await Deno.mkdir(join(home, ".codex"));
    await Deno.writeTextFile(
      join(home, ".codex/config.toml"),
      '[mcp_servers.portreeve]\ncommand = "/opt/old install/bin/portreeve-mcp"\nargs = ["serve"]\n',
    );
    const context: PlaceContext = {
      env: (n) => n === "HOME" ? home : undefined,
      os: "linux",
      cwd: null,
    };
    const step = await nextStep(["doctor", "--host", "codex"], "source", context, () => true);
    assert.ok(
      step.flags.includes("--allow-run=codex,/opt/old install/bin/portreeve-mcp"),
      step.flags.join("\n"),
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
