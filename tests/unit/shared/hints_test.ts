/**
 * The reader's form is told from the running program alone, and every command is spelled for
 * it: the absolute program, `cd CHECKOUT && deno task …`, or the npx form when Deno runs from
 * npx's cache. (tests/e2e/hints_test.ts runs what the printers print, in each form.)
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  commandLine,
  type ReaderForm,
  readerForm,
  taskCommand,
  taskStep,
  taskUsage,
} from "../../../src/shared/hints.ts";

const NPX = `npx -y deno@${Deno.version.deno}`;
const CHECKOUT = "/home/ada/src/it's here";

const forms: Record<string, ReaderForm> = {
  compiled: readerForm({ kind: "compiled", execPath: "/opt/portreeve-mcp", entryPath: null }),
  installed: readerForm({
    kind: "installed",
    execPath: "/r/lib/portreeve-mcp/deno",
    entryPath: "/r/lib/portreeve-mcp/main.js",
    launcher: "/r/bin/portreeve-mcp",
  }),
  deno: readerForm({
    kind: "script",
    execPath: "/home/ada/.deno/bin/deno",
    entryPath: `${CHECKOUT}/main.ts`,
  }),
  npx: readerForm({
    kind: "script",
    execPath: "/home/ada/.npm/_npx/6f1c/node_modules/deno/deno",
    entryPath: `${CHECKOUT}/dist/main.js`,
  }),
  unknown: readerForm(
    { kind: "script", execPath: "/usr/bin/deno", entryPath: "/srv/elsewhere.js" },
    null,
  ),
};

Deno.test("hints: the form comes from the executable and the entry", () => {
  assert.deepEqual(forms.compiled, { kind: "program", program: "/opt/portreeve-mcp" });
  assert.deepEqual(forms.installed, { kind: "program", program: "/r/bin/portreeve-mcp" });
  assert.deepEqual(forms.deno, { kind: "checkout", checkout: CHECKOUT, deno: ["deno"] });
  assert.deepEqual(forms.npx, {
    kind: "checkout",
    checkout: CHECKOUT,
    deno: ["npx", "-y", `deno@${Deno.version.deno}`],
  });
  assert.deepEqual(forms.unknown, { kind: "unknown" });
  // A script of this checkout (here, this test) finds the checkout from src/shared/hints.ts itself.
  const root = fileURLToPath(new URL("../../../", import.meta.url)).replace(/\/$/, "");
  const here = readerForm();
  assert.equal(here.kind === "checkout" ? here.checkout : here.kind, root);
});

Deno.test("hints: a bridge command, spelled for each form", () => {
  const words = ["config", "--host", "claude", "--socket", "/s p.sock"];
  const cd = `cd '/home/ada/src/it'\\''s here' &&`;
  assert.equal(
    commandLine(words, forms.installed),
    "/r/bin/portreeve-mcp config --host claude --socket '/s p.sock'",
  );
  assert.equal(
    commandLine(words, forms.deno),
    `${cd} deno task config --host claude --socket '/s p.sock'`,
  );
  assert.equal(
    commandLine(words, forms.npx),
    `${cd} ${NPX} task config --host claude --socket '/s p.sock'`,
  );
  assert.equal(commandLine(["--help"], forms.deno), `${cd} deno task confined run main.ts --help`);
  assert.equal(commandLine(["--help"], forms.unknown), "portreeve-mcp --help");
});

Deno.test("hints: a checkout task, for a reader with a checkout or without one", () => {
  assert.deepEqual(taskCommand("simulator", ["--socket", "/s"], forms.npx), {
    command: `cd '/home/ada/src/it'\\''s here' && ${NPX} task simulator --socket /s`,
    needsCheckout: false,
  });
  assert.equal(
    taskStep("install", ["--force"], forms.installed, { PORTREEVE_MCP_INSTALL_ROOT: "/o p" }),
    `\`PORTREEVE_MCP_INSTALL_ROOT='/o p' ${NPX} task install --force\` in a portreeve-mcp checkout`,
  );
  assert.equal(
    taskStep("install", [], forms.deno, { PORTREEVE_MCP_INSTALL_ROOT: "/o" }),
    `\`cd '/home/ada/src/it'\\''s here' && PORTREEVE_MCP_INSTALL_ROOT=/o deno task install\``,
  );
  assert.equal(taskUsage("simulator", forms.deno), "deno task simulator");
  assert.equal(taskUsage("simulator", forms.npx), `${NPX} task simulator`);
  assert.equal(taskUsage("release:local", forms.compiled), `${NPX} task release:local`);
});
