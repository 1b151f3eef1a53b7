/**
 * A certificate Deno cannot verify while fetching (a proxy that inspects TLS) gets a hint that
 * names `DENO_TLS_CA_STORE=system` and the command to run again; other failures get none. The
 * task runner adds it after a failed step, whatever that step was.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { tlsHint } from "../../../src/shared/tls_hint.ts";

const again = () => "DENO_TLS_CA_STORE=system npx -y deno@2.9.6 task demo";

Deno.test("tls hint: only for a certificate failure, naming the variable and the command", () => {
  const failure =
    "error: Import 'https://registry.npmjs.org/zod' failed: client error (Connect): invalid peer certificate: UnknownIssuer";
  assert.equal(
    tlsHint(failure, again),
    "Deno could not verify the certificate of a server it fetched from; behind a proxy that " +
      "inspects TLS, tell Deno to trust the system's certificates as npm does and run it again: " +
      "`DENO_TLS_CA_STORE=system npx -y deno@2.9.6 task demo`",
  );
  assert.equal(tlsHint("error: Module not found", again), undefined);
});

Deno.test("tls hint: the task runner says it after a step that failed that way", async () => {
  const dir = await Deno.makeTempDir({ prefix: "prmcp-tls-" });
  try {
    const failing = `${dir}/fetch.ts`;
    await Deno.writeTextFile(
      failing,
      'console.error("error: client error (Connect): invalid peer certificate: UnknownIssuer");\n' +
        "Deno.exit(1);\n",
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-run",
        "--quiet",
        "--no-prompt",
        "scripts/task.ts",
        "confined",
        "run",
        failing,
      ],
      cwd: fileURLToPath(new URL("../../../", import.meta.url)),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1);
    assert.match(stderr, /^error: client error \(Connect\): invalid peer certificate/);
    assert.match(stderr, /`[^`]*DENO_TLS_CA_STORE=system [^`]*task confined run [^`]+`\n$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
