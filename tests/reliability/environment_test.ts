/**
 * Child processes inherit the caller's environment. With DENO_DIR pointing at the only cache
 * that holds the dependencies (HOME's default cache is empty here), the demo and an
 * end-to-end test pass only if every process they start keeps DENO_DIR.
 */
import { TEST_PERMISSIONS } from "../../scripts/tasks.ts";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ESC = String.fromCharCode(27);
const COLOUR = new RegExp(`${ESC}\\[[0-9;]*m`, "g");

async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const info: unknown = JSON.parse(new TextDecoder().decode(out.stdout));
  if (typeof info !== "object" || info === null || !("denoDir" in info)) {
    throw new Error("deno info --json has no denoDir");
  }
  return String(info.denoDir);
}

/** The caller's environment with DENO_DIR moved behind a new name and HOME emptied. */
async function customDenoDir(dir: string): Promise<Record<string, string>> {
  const cache = `${dir}/custom-deno-dir`;
  await Deno.symlink(await denoDir(), cache);
  await Deno.mkdir(`${dir}/home`);
  const env = Deno.env.toObject();
  delete env.XDG_CACHE_HOME;
  return { ...env, DENO_DIR: cache, HOME: `${dir}/home`, DENO_NO_UPDATE_CHECK: "1" };
}

async function run(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  // The child report can come coloured even with NO_COLOR set: compare its plain text.
  return { code: out.code, text: text.replace(COLOUR, "") };
}

Deno.test("with a custom DENO_DIR the demo and an end-to-end test pass", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-env-" });
  try {
    const env = await customDenoDir(dir);
    const demo = await run(["task", "demo"], env);
    assert.equal(demo.code, 0, demo.text.slice(-2000));
    assert.match(demo.text, /Done\. Everything above ran against the SIMULATED daemon\./);
    // The product's main feature: a person, simulated and labelled so, approves a change.
    assert.match(demo.text, /approval needed[\s\S]*SIMULATED person answers: yes/);
    assert.match(demo.text, /"deleted":true/);

    const e2e = await run(["test", ...TEST_PERMISSIONS, "tests/e2e/foundation_test.ts"], env);
    assert.equal(e2e.code, 0, e2e.text.slice(-2000));
    assert.match(e2e.text, /ok \| 3 passed \| 0 failed/);
    assert.deepEqual([...Deno.readDirSync(`${dir}/home`)], [], "nothing fell back to HOME");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
