/**
 * `config` for the copy `deno task install` made (or a release folder) prints the launcher and
 * never advises a reinstall, and for a source run
 * warns about a Deno or entry file that lives in npx's cache or a temporary folder.
 */
import assert from "node:assert/strict";
import { installLayout, installRootOf } from "../../../src/shared/install_layout.ts";
import { renderConfig } from "../../../src/profiles/mod.ts";
import type { Installation } from "../../../src/shared/installation.ts";
import { runConfigCommand } from "../../../src/cli/config.ts";
import { HOME_SOCKET } from "./golden/fixtures.ts";

const layout = installLayout("/home/ada/.deno");
const INSTALLED: Installation = {
  kind: "installed",
  execPath: layout.deno,
  entryPath: layout.bundle,
  launcher: layout.launcher,
};

Deno.test("install layout: recognised from the executable and bundle paths alone", () => {
  assert.equal(installRootOf(layout.deno, layout.bundle), "/home/ada/.deno");
  assert.equal(installRootOf("/usr/bin/deno", layout.bundle), null, "another deno");
  assert.equal(installRootOf(layout.deno, "/home/ada/src/main.ts"), null, "a checkout");
});

Deno.test("install layout: the npm package is recognised with npm's Deno, nested or hoisted", () => {
  const modules = "/usr/local/lib/node_modules";
  const npm = installLayout(`${modules}/@portreeve/mcp`);
  const denos = [
    `${npm.root}/node_modules/deno/deno`,
    `${modules}/deno/deno`,
    `${modules}/@deno/linux-x64-glibc/deno`,
    "/node_modules/deno/deno",
  ];
  for (const deno of denos) assert.equal(installRootOf(deno, npm.bundle), npm.root, deno);
  // A Deno in some other package's node_modules, or not npm's, does not make an install.
  assert.equal(installRootOf("/srv/app/node_modules/deno/deno", npm.bundle), null);
  assert.equal(installRootOf(`${modules}/deno/bin/deno`, npm.bundle), null);
  assert.equal(installRootOf(`${modules}/deno/deno`, "/home/ada/src/main.ts"), null);
});

Deno.test("config from npx's cache warns that the entry points into it; a global install does not", () => {
  const cases: [string, number][] = [
    ["/home/ada/.npm/_npx/6f1c/node_modules/@portreeve/mcp", 1],
    ["/usr/local/lib/node_modules/@portreeve/mcp", 0],
  ];
  for (const [root, warnings] of cases) {
    const layout = installLayout(root);
    const installation: Installation = {
      kind: "installed",
      execPath: `${root}/node_modules/deno/deno`,
      entryPath: layout.bundle,
      launcher: layout.launcher,
    };
    let stderr = "";
    const code = runConfigCommand(["--host", "claude", "--socket", "/run/p.sock"], {
      stdout: () => {},
      stderr: (text) => stderr += text,
    }, { installation, socketGranted: () => true, listening: () => true });
    assert.equal(code, 0);
    const lines = stderr.split("\n").filter((line) => line !== "");
    assert.equal(lines.length, warnings, stderr);
    if (warnings > 0) {
      assert.match(lines[0], /npx's cache \(\/home\/ada\/\.npm\/_npx\/6f1c\/.*\)/);
      assert.match(lines[0], /`npm install -g @portreeve\/mcp`/);
    }
  }
});

Deno.test("config for an installation prints the launcher in exact mode, the bare name portably", () => {
  const exact = renderConfig({ host: "claude", portable: false, socket: HOME_SOCKET }, INSTALLED);
  assert.equal(exact.command, "/home/ada/.deno/bin/portreeve-mcp");
  assert.deepEqual(exact.args, ["serve", "--socket", HOME_SOCKET.path]);
  assert.deepEqual(exact.env, { DENO_NO_UPDATE_CHECK: "1" });
  // The launcher grants the socket it is started with: a moved socket needs a new entry only.
  assert.ok(exact.notes.some((note) => note.includes("grants the bridge, each time it starts")));
  assert.ok(exact.notes.every((note) => !/install/.test(note)), "no reinstall advice");
  const portable = renderConfig({ host: "codex", portable: true, socket: HOME_SOCKET }, INSTALLED);
  assert.equal(portable.command, "portreeve-mcp");
});

Deno.test("config for an installation run without its launcher's grant points at the launcher", () => {
  let stderr = "";
  const code = runConfigCommand(["--host", "generic", "--socket", "/elsewhere.sock"], {
    stdout: () => {},
    stderr: (text) => stderr += text,
  }, { installation: INSTALLED, socketGranted: () => false });
  assert.equal(code, 1);
  assert.match(
    stderr,
    /through its launcher, .*: `\/home\/ada\/\.deno\/bin\/portreeve-mcp config --host generic --socket \/elsewhere\.sock`/,
  );
  assert.doesNotMatch(stderr, /install/);
});

Deno.test("config warns when a source run's deno or entry lies in npx's cache or a temp dir", () => {
  // Each warning's remedy is the install task, spelled for the reader's way of running tasks.
  const cases: [Installation, RegExp[], string][] = [
    [
      {
        kind: "script",
        execPath: "/home/ada/.npm/_npx/6f1c/node_modules/deno/deno",
        entryPath: "/home/ada/src/portreeve-mcp/main.ts",
      },
      [/the Deno executable .*_npx.* npx's cache/],
      `cd /home/ada/src/portreeve-mcp && npx -y deno@${Deno.version.deno} task install`,
    ],
    [
      { kind: "script", execPath: "/usr/local/bin/deno", entryPath: "/tmp/clone/main.ts" },
      [/the entry file \/tmp\/clone\/main\.ts lies in a temporary folder/],
      "cd /tmp/clone && deno task install",
    ],
    [
      {
        kind: "script",
        execPath: "/private/var/folders/x/T/deno",
        entryPath: "/var/folders/y/main.ts",
      },
      [/the Deno executable/, /the entry file/],
      "cd /var/folders/y && deno task install",
    ],
    [
      { kind: "script", execPath: "/usr/local/bin/deno", entryPath: "/home/ada/main.ts" },
      [],
      "",
    ],
  ];
  for (const [installation, expected, remedy] of cases) {
    let stderr = "";
    const code = runConfigCommand(["--host", "generic", "--socket", "/run/p.sock"], {
      stdout: () => {},
      stderr: (text) => stderr += text,
    }, {
      installation,
      disk: { lstat: () => null, readLink: () => null, uid: () => null, accounts: () => null },
      listening: () => true,
    });
    assert.equal(code, 0);
    const lines = stderr.split("\n").filter((line) => line !== "");
    assert.equal(lines.length, expected.length, stderr);
    expected.forEach((pattern, i) => {
      assert.match(lines[i], pattern);
      assert.ok(lines[i].includes(`\`${remedy}\``), lines[i]);
    });
  }
});
