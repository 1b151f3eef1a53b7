/**
 * The npm package as a newcomer gets it: built and packed here (scripts/npm_package.ts), then
 * `npm install -g` of the tarball into a fresh prefix with a fresh HOME, Deno coming from npm's
 * `deno` package. Its `portreeve-mcp` answers --version, its `config` prints the launcher's own
 * path inside that install, its `doctor` passes against the simulator, and a real host (Claude
 * Code's `claude mcp list`) connects through the printed entry. `npx -y` of the tarball gives
 * the same entry for a first look, pointing into npx's cache and saying so.
 *
 * npm's download cache is the machine's (npm_config_cache): a fresh HOME need not fetch the 40 MB
 * Deno package again, and nothing of the cache is read by what is tested.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { buildPackage } from "../../scripts/npm_package.ts";
import { LAUNCHER_NAME, NPM_PACKAGE } from "../../src/shared/install_layout.ts";
import { SOFTWARE_VERSION } from "../../src/shared/options.ts";
import { claude } from "./hosts.ts";
import { installedBin } from "./install.ts";
import { configOutput, runBounded, type RunResult, startRig } from "./rig.ts";

const INSTALL_TIMEOUT_MS = 600_000;
const RUN_TIMEOUT_MS = 60_000;

interface Installed {
  work: string;
  tarball: string;
  prefix: string;
  home: string;
  /** `PREFIX/bin/portreeve-mcp`, the link npm put on PATH. */
  bin: string;
  /** The launcher's real path inside the install. */
  launcher: string;
  env: Record<string, string>;
  install: RunResult;
}

async function npmCache(): Promise<string> {
  const out = await new Deno.Command("npm", { args: ["config", "get", "cache"], stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout).trim();
}

let installed: Promise<Installed> | undefined;

/** Packs and installs once; every test reads the same install. */
function install(): Promise<Installed> {
  installed ??= (async () => {
    const work = await Deno.makeTempDir({ prefix: "prmcp-npm-" });
    const tarball = await buildPackage(work);
    const prefix = join(work, "prefix");
    const home = join(work, "home");
    await Deno.mkdir(home);
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      npm_config_cache: await npmCache(),
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
      // Cached metadata is enough for a pinned deno; only a cold cache asks the registry.
      npm_config_prefer_offline: "true",
    };
    const result = await runBounded("npm", ["install", "-g", "--prefix", prefix, tarball], {
      env,
      cwd: home,
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
    assert.equal(result.code, 0, `npm install -g failed:\n${result.stderr.slice(-2000)}`);
    const bin = join(prefix, "bin", LAUNCHER_NAME);
    const launcher = await Deno.realPath(bin);
    return { work, tarball, prefix, home, bin, launcher, env, install: result };
  })();
  return installed;
}

/** Runs the installed `portreeve-mcp` as a user with only PATH and HOME would. */
async function portreeveMcp(args: string[]): Promise<RunResult> {
  const { bin, env, home } = await install();
  return await runBounded(bin, args, {
    env: { PATH: "/usr/bin:/bin", HOME: env.HOME },
    cwd: home,
    timeoutMs: RUN_TIMEOUT_MS,
  });
}

const printed = z.object({ config: z.object({ command: z.string(), args: z.array(z.string()) }) });

Deno.test("npm package: `npm install -g` of the packed tarball puts a working portreeve-mcp on PATH", async () => {
  const { launcher, prefix } = await install();
  assert.equal(launcher, join(prefix, "lib", "node_modules", NPM_PACKAGE, "bin", LAUNCHER_NAME));
  const version = await portreeveMcp(["--version"]);
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout.trim(), `${LAUNCHER_NAME} ${SOFTWARE_VERSION}`);
});

Deno.test("npm package: config prints the launcher's path inside the install, no npx warning", async () => {
  const { launcher } = await install();
  const out = await portreeveMcp([
    "config",
    "--host",
    "claude",
    "--socket",
    "/run/p.sock",
    "--json",
  ]);
  assert.equal(out.code, 0, out.stderr);
  // Only the warning that no daemon listens at /run/p.sock: none about npx's cache.
  const warnings = out.stderr.split("\n").filter((line) => line !== "");
  assert.equal(warnings.length, 1, out.stderr);
  assert.match(warnings[0], /nothing listens on \/run\/p\.sock yet/);
  const { config } = printed.parse(JSON.parse(out.stdout));
  assert.equal(config.command, launcher);
  assert.deepEqual(config.args, ["serve", "--socket", "/run/p.sock"]);
  assert.ok(!config.command.includes("/_npx/"));
});

Deno.test("npm package: doctor passes against the simulator, and a real host connects through it", async () => {
  const { launcher } = await install();
  const rig = await startRig();
  try {
    const doctor = await portreeveMcp(["doctor", "--socket", rig.socket, "--json"]);
    assert.equal(doctor.code, 0, `${doctor.stdout}\n${doctor.stderr}`);
    assert.equal(JSON.parse(doctor.stdout).verdict, "ok");
    const config = await portreeveMcp([
      "config",
      "--host",
      "claude",
      "--socket",
      rig.socket,
      "--json",
    ]);
    const printedEntry = configOutput.parse(JSON.parse(config.stdout)).config;
    assert.equal(printedEntry.command, launcher);
    await claude.configure(rig, printedEntry);
    const check = await claude.check!(await installedBin(claude.pkg), rig, "http://127.0.0.1:9");
    assert.ok(check.connected, `${check.command} did not connect:\n${check.output}`);
  } finally {
    await rig.close();
  }
});

Deno.test("npm package: `npx -y` of the tarball prints the entry for a first look, warning it lives in npx's cache", async () => {
  const { tarball, work, env } = await install();
  const home = join(work, "npx-home");
  await Deno.mkdir(home, { recursive: true });
  const out = await runBounded(
    "npx",
    ["-y", `file:${tarball}`, "config", "--host", "claude", "--socket", "/run/p.sock"],
    { env: { ...env, HOME: home }, cwd: home, timeoutMs: INSTALL_TIMEOUT_MS },
  );
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /"command": "[^"]*\/_npx\/[^"]*\/bin\/portreeve-mcp"/);
  assert.match(
    out.stderr,
    /Warning: this portreeve-mcp runs from npx's cache .*npm install -g @portreeve\/mcp/,
  );
});

Deno.test("npm package: cleaned up", async () => {
  const { work } = await install();
  await Deno.remove(work, { recursive: true });
});
