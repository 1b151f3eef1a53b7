/**
 * The release archive, built here as printed (`deno task release:local`) and run as a user
 * would by the same smoke test the release workflow runs (scripts/release_smoke.sh): its
 * checksum, one folder unpacked under another HOME and moved, an empty DENO_DIR, no network
 * (`unshare -n` where allowed; the script says when it is not), a socket chosen at launch;
 * initialize, tools/list, a tool call, `config --host claude` and `doctor`.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { launcherScript } from "../../src/cli/install/launcher.ts";
import { sha256 } from "../../src/cli/install/manifest.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NAME = "portreeve-mcp-linux-x64";
const ARCHIVE = `${ROOT}dist/${NAME}.tar.gz`;
const decoder = new TextDecoder();

async function run(command: string, args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(command, {
    args,
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

const onLinuxX64 = Deno.build.os === "linux" && Deno.build.arch === "x86_64";
if (!onLinuxX64) {
  console.log(`release test skipped: it builds linux-x64, this is ${Deno.build.target}`);
}

Deno.test({
  name: "release:local: one folder with launcher, bundle and Deno that runs anywhere it is moved",
  ignore: !onLinuxX64,
  fn: async () => {
    const built = await run(Deno.execPath(), ["task", "-q", "release:local"]);
    assert.equal(built.code, 0, built.stderr);
    const sum = await sha256(await Deno.readFile(ARCHIVE));
    assert.equal(await Deno.readTextFile(`${ARCHIVE}.sha256`), `${sum}  ${NAME}.tar.gz\n`);

    const listing = await run("tar", ["-tvzf", ARCHIVE]);
    const entries = listing.stdout.trim().split("\n").map((line) => {
      // GNU tar: mode, owner, size, date, time, path (no path here has a space).
      const fields = line.split(/\s+/);
      return { mode: fields[0], path: fields[fields.length - 1].replace(/\/$/, "") };
    });
    assert.ok(entries.every(({ path }) => path === NAME || path.startsWith(`${NAME}/`)));
    const mode = (path: string) => entries.find((entry) => entry.path === `${NAME}/${path}`)?.mode;
    assert.match(mode("bin/portreeve-mcp") ?? "", /^-rwx/);
    assert.match(mode("lib/portreeve-mcp/deno") ?? "", /^-rwx/);
    assert.ok(mode("lib/portreeve-mcp/main.js"), "the bundle");
    assert.ok(mode("lib/portreeve-mcp/deno.LICENSE"), "Deno's licence travels with Deno");
    assert.ok(mode("LICENSE"), "and ours with the folder");
    const launcher = await run("tar", ["-xzOf", ARCHIVE, `${NAME}/bin/portreeve-mcp`]);
    assert.equal(launcher.stdout, launcherScript("linux"), "the generated launcher");

    const smoke = await run(`${ROOT}scripts/release_smoke.sh`, [ARCHIVE], {
      DENO: Deno.execPath(),
    });
    console.log(smoke.stdout.trim());
    assert.equal(smoke.code, 0, `${smoke.stdout}\n${smoke.stderr}`);
    assert.match(smoke.stdout, /smoke: all checks passed/);
  },
});
