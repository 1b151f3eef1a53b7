/**
 * `setup --host`, `doctor --host` and `setup --host --remove` with the real host programs, as
 * `deno task setup` and `deno task doctor` run them (scripts/confined.ts: the staged grant),
 * each host in a fresh HOME against the simulator: setup writes the entry (through the host's
 * own command, or its file), a second run changes nothing, doctor runs the entry the host has and
 * says OK, `--remove` takes it out and doctor then says MISSING. For Claude Code, an entry
 * naming a socket where nothing listens is MISCONFIGURED however `claude mcp get` shows it.
 * A host file in its published format with CRLF line endings (comments, another server) is
 * read by the host with both servers after setup, and given back byte for byte by --remove.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TASKS } from "../../scripts/tasks.ts";
import { HOST_PACKAGES, installedBin } from "./install.ts";
import { type Rig, startRig } from "./rig.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DENO_DIR = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno");

/** A task's one Deno step, its paths made absolute so it runs from the host's folder. */
function taskArgs(task: "setup" | "doctor"): string[] {
  const [step] = TASKS[task].steps;
  if (!("deno" in step)) throw new Error(`${task} is not one Deno step`);
  return step.deno.map((arg) => /^(scripts\/|main\.ts$)/.test(arg) ? join(ROOT, arg) : arg);
}

/** The folder each host whose file setup edits makes when it first starts. */
const FOLDERS: Record<string, string> = {
  codex: ".codex",
  gemini: ".gemini",
  qwen: ".qwen",
  copilot: ".copilot",
  opencode: ".config/opencode",
  cline: ".cline/data/settings",
};

/** Each host's own switches for running offline in a throwaway home. */
const HOST_ENV: Record<string, Record<string, string>> = {
  copilot: { COPILOT_OFFLINE: "true", COPILOT_AUTO_UPDATE: "false" },
  opencode: {
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  },
  claude: { DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
};

function hostEnv(rig: Rig, bin: string, host: string) {
  const path = `${join(bin, "..")}:${rig.env().PATH}`;
  return rig.env({ ...HOST_ENV[host], PATH: path, PWD: rig.workdir, DENO_DIR });
}

/** What the host's own program prints (stdout, then stderr), run as setup and doctor run it. */
async function hostSays(rig: Rig, bin: string, host: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(bin, {
    args,
    cwd: rig.workdir,
    env: hostEnv(rig, bin, host),
    clearEnv: true,
    stdin: "null",
  }).output();
  return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
}

async function task(
  rig: Rig,
  bin: string,
  host: string,
  task: "setup" | "doctor",
  ...args: string[]
) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(task), "--host", host, ...args],
    cwd: rig.workdir,
    env: hostEnv(rig, bin, host),
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

for (const pkg of HOST_PACKAGES) {
  Deno.test(`${pkg.host}: setup writes the entry, doctor runs it, --remove takes it out`, async () => {
    const bin = await installedBin(pkg);
    const rig = await startRig({ seed: false });
    try {
      // A host makes its folder when it first starts; setup does not make it.
      const folder = FOLDERS[pkg.host];
      if (folder !== undefined) await Deno.mkdir(join(rig.home, folder), { recursive: true });
      if (pkg.host === "gemini") {
        await Deno.mkdir(join(rig.home, ".gemini"), { recursive: true });
        await Deno.writeTextFile(
          join(rig.home, ".gemini/trustedFolders.json"),
          JSON.stringify({ [rig.workdir]: "TRUST_FOLDER" }),
        );
      }
      const socket = ["--socket", rig.socket];
      const first = await task(rig, bin, pkg.host, "setup", ...socket);
      assert.equal(first.code, 0, first.stdout + first.stderr);
      const again = await task(rig, bin, pkg.host, "setup", ...socket);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /nothing to change/);
      const doctor = await task(rig, bin, pkg.host, "doctor", ...socket);
      assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
      assert.match(doctor.stdout, /through the entry: .*PortReeve/);
      assert.match(doctor.stdout, /Verdict: OK/);
      const removed = await task(rig, bin, pkg.host, "setup", "--remove");
      assert.equal(removed.code, 0, removed.stdout + removed.stderr);
      const gone = await task(rig, bin, pkg.host, "doctor", ...socket);
      assert.equal(gone.code, 6, gone.stdout + gone.stderr);
      assert.match(gone.stdout, /Verdict: MISSING\. Run `.*setup --host/);
    } finally {
      await rig.close();
    }
  });
}

Deno.test("claude: an entry naming a socket where nothing listens is never OK", async () => {
  const pkg = HOST_PACKAGES.find((p) => p.host === "claude")!;
  const bin = await installedBin(pkg);
  const rig = await startRig({ seed: false });
  try {
    const moved = join(rig.home, "moved", "portreeve.sock");
    const setup = await task(rig, bin, "claude", "setup", "--socket", moved);
    assert.equal(setup.code, 0, setup.stdout + setup.stderr);
    const doctor = await task(rig, bin, "claude", "doctor", "--socket", rig.socket);
    assert.equal(doctor.code, 5, doctor.stdout + doctor.stderr);
    assert.ok(doctor.stdout.includes(`uses ${moved}`), doctor.stdout);
    assert.match(doctor.stdout, /Verdict: MISCONFIGURED\. Run `.*setup --host claude --socket /);
  } finally {
    await rig.close();
  }
});

/** Each file-edited host, its list command, its file, that file's fixture and the other server. */
const LISTED: [string, string[], string, string, string][] = [
  ["codex", ["mcp", "list"], ".codex/config.toml", "codex.toml", "docs"],
  ["gemini", ["mcp", "list"], ".gemini/settings.json", "gemini.json", "notes"],
  ["qwen", ["mcp", "list"], ".qwen/settings.json", "qwen.json", "files"],
  ["copilot", ["mcp", "list"], ".copilot/mcp-config.json", "copilot.json", "playwright"],
  [
    "opencode",
    ["mcp", "list", "--pure"],
    ".config/opencode/opencode.jsonc",
    "opencode.jsonc",
    "github",
  ],
];

for (const [host, list, file, fixture, other] of LISTED) {
  Deno.test(`${host}: a commented CRLF file keeps every byte, the host lists both servers`, async () => {
    const pkg = HOST_PACKAGES.find((p) => p.host === host)!;
    const bin = await installedBin(pkg);
    const rig = await startRig({ seed: false });
    try {
      const path = join(rig.home, file);
      await Deno.mkdir(dirname(path), { recursive: true });
      const published = await Deno.readTextFile(join(ROOT, "tests/fixtures/host_files", fixture));
      const original = published.replaceAll("\n", "\r\n");
      await Deno.writeTextFile(path, original);
      const setup = await task(rig, bin, host, "setup", "--socket", rig.socket);
      assert.equal(setup.code, 0, setup.stdout + setup.stderr);
      const shown = await hostSays(rig, bin, host, list);
      assert.match(shown, /portreeve/, shown);
      assert.ok(shown.includes(other), shown);
      const removed = await task(rig, bin, host, "setup", "--remove");
      assert.equal(removed.code, 0, removed.stdout + removed.stderr);
      assert.equal(await Deno.readTextFile(path), original);
    } finally {
      await rig.close();
    }
  });
}

/**
 * What each host's JSON reader refuses (its profile's jsonSyntax), measured with its program:
 * the host fails to read the file, and doctor says MISCONFIGURED naming the line and column.
 */
const REFUSES: Record<string, { probe: string[]; spoil: (text: string) => string }> = {
  cline: {
    probe: ["mcp", "add", "probe", "--yes", "--", "node", "probe.js"],
    spoil: (text) => text.replace('"mcpServers": {', '"mcpServers": { // mine'),
  },
  gemini: { probe: ["mcp", "list"], spoil: (text) => text.replace(/\n\}\s*$/, ",\n}\n") },
  qwen: { probe: ["mcp", "list"], spoil: (text) => text.replace(/\n\}\s*$/, ",\n}\n") },
};

for (const [host, { probe, spoil }] of Object.entries(REFUSES)) {
  Deno.test(`${host}: a file its reader refuses is refused by the host, and doctor names where`, async () => {
    const pkg = HOST_PACKAGES.find((p) => p.host === host)!;
    const bin = await installedBin(pkg);
    const rig = await startRig({ seed: false });
    try {
      await Deno.mkdir(join(rig.home, FOLDERS[host]), { recursive: true });
      const setup = await task(rig, bin, host, "setup", "--socket", rig.socket);
      assert.equal(setup.code, 0, setup.stdout + setup.stderr);
      const file = /^Wrote the portreeve entry to (.+?\.json)[ .]/m.exec(setup.stdout)![1];
      await Deno.writeTextFile(file, spoil(await Deno.readTextFile(file)));
      const said = await hostSays(rig, bin, host, probe);
      assert.match(said, /JSON/, `${host} read it: ${said}`);
      const doctor = await task(rig, bin, host, "doctor", "--socket", rig.socket);
      assert.equal(doctor.code, 5, doctor.stdout + doctor.stderr);
      assert.ok(doctor.stdout.includes(`${file}:`), doctor.stdout);
      assert.match(doctor.stdout, /which .* cannot read: it takes no server from this file/);
    } finally {
      await rig.close();
    }
  });
}
