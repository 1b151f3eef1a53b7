/**
 * Every next step a printer shows a person runs as printed, for each form of reader (the
 * installed launcher, a checkout through `deno`, a checkout through `npx`). It runs some sixty
 * programs, so it lives in the reliability suite; the fast suite checks the same commands
 * against the task table and the parsers (tests/unit/repo/doc_commands_test.ts) and each
 * printer's wording (tests/e2e/hints_test.ts, tests/unit/shared/hints_test.ts).
 */
import assert from "node:assert/strict";
import { withSimulator } from "../e2e/harness.ts";
import {
  type Form,
  type Output,
  type Rig,
  runPrinted,
  setUpForms,
  toolTexts,
} from "./hint_forms.ts";

/**
 * Every next step a printer shows a person — config, doctor, install, uninstall, the
 * simulator's and the program's usage errors, and the hints in tool errors and the bridge's log
 * — runs as printed in each form a reader may use (hint_forms.ts): each command in backticks is
 * run by `sh` with that reader's PATH and must exit 0 (the simulator must come up on its socket
 * and go away on SIGTERM), and what it prints is walked the same way. Programs that are not
 * ours (PortReeve's own CLI, the hosts' CLIs) are named in NOT_OURS and not run; our `setup`,
 * which writes a host's files, runs as printed with --dry-run in an empty HOME. A command of
 * ours outside backticks fails the test, as do `npx` printed for a reader of `deno task` and a
 * bare `deno task` printed for a reader of npx or of the launcher.
 */
const NOT_OURS = [
  "portreeve",
  ...["claude", "codex", "gemini", "opencode", "copilot", "qwen", "cline", "code", "cursor"],
];

interface Printed {
  printer: string;
  /** Everything it printed (stdout, stderr, a tool error's message, the bridge's log). */
  text: string;
  /** Least number of our commands it must print. */
  least: number;
}

/** What each printer prints in this form; `down` is a socket no daemon listens on. */
async function printedBy(form: Form, rig: Rig, up: string, down: string): Promise<Printed[]> {
  const printed: Printed[] = [];
  const expect = async (printer: string, least: number, code: number, run: Promise<Output>) => {
    const { code: exit, stdout, stderr } = await run;
    assert.equal(exit, code, `${form.name} ${printer}: ${stdout}${stderr}`);
    printed.push({ printer, least, text: stdout + stderr });
  };
  await expect("config", 1, 0, form.command(["config", "--host", "claude"]));
  await expect("config usage", 1, 2, form.command(["config", "--bogus"]));
  await expect("doctor down", 1, 3, form.command(["doctor", "--socket", down]));
  await expect("doctor ok", 0, 0, form.command(["doctor", "--socket", up]));
  await expect("program usage", 1, 2, form.command(["bogus"]));
  // doctor warns about the host command's paths exactly as config does: through npx always
  // (its cache), from a checkout under /tmp too, from the launcher never.
  const warnings = (printer: string, pattern: RegExp) =>
    [...printed.find((p) => p.printer === printer)!.text.matchAll(pattern)].map((m) => m[1]);
  const configWarnings = warnings("config", /^portreeve-mcp config: Warning: (.*)$/gm);
  assert.deepEqual(warnings("doctor ok", /^\[warn\] host command paths: (.*)$/gm), configWarnings);
  assert.equal(
    configWarnings.length,
    form.task === null ? 0 : 2,
    `${form.name}: ${configWarnings}`,
  );
  const misconfigured = await toolTexts(form, form.bridge(up, down), ["portreeve_health"]);
  printed.push({
    printer: "tool error misconfigured",
    least: 1,
    text: [...misconfigured.texts, misconfigured.log].join("\n"),
  });
  const unavailable = await toolTexts(form, form.bridge(down, down), [
    "portreeve_health",
    "portreeve_diagnostics",
  ]);
  // The one command an agent relays to its user is the program's own name, as the user knows
  // it (an agent names no reader's form): the form's doctor runs those same words.
  const relayed = /Ask the user to run `portreeve-mcp (doctor --host HOST)`/g;
  const said = unavailable.texts.join("\n");
  assert.match(said, relayed, `${form.name} tool error unavailable: ${said}`);
  // Its own next steps (setup, writing a host's file) are not walked: doctor's are, above.
  const doctor = await form.command(["doctor", "--host", "claude", "--socket", down]);
  assert.equal(doctor.code, 3, `${form.name} relayed doctor: ${doctor.stdout}${doctor.stderr}`);
  printed.push({ printer: "tool error unavailable", least: 0, text: said.replace(relayed, "") });
  if (form.task === null) return printed;

  // Tasks of a checkout. An install root holding someone else's launcher: install refuses
  // (its --force command, run below, installs and prints the next steps of an install).
  const refused = `${rig.work}/refused-${form.name}`;
  await Deno.mkdir(`${refused}/bin`, { recursive: true });
  await Deno.writeTextFile(`${refused}/bin/portreeve-mcp`, "#!/bin/sh\necho not ours\n");
  const root = { PORTREEVE_MCP_INSTALL_ROOT: refused };
  await expect("install refused", 1, 1, form.task("install", [], root));
  await expect("uninstall foreign", 0, 1, form.task("uninstall", [], root));
  await expect("uninstall usage", 1, 2, form.task("uninstall", ["--force"]));
  await expect("simulator usage", 1, 2, form.task("simulator", []));
  await expect("simulator flag", 1, 2, form.task("simulator", ["--x"]));
  return printed;
}

/** Our commands in backticks (a name alone, without a space, is not a command). */
function commandsIn(text: string): { command: string; inCheckout: boolean }[] {
  return [...text.matchAll(/`([^`\n]+)`( in a portreeve-mcp checkout)?/g)]
    .filter(([, command]) => command.includes(" ") && !NOT_OURS.includes(command.split(" ")[0]))
    .map(([, command, checkout]) => ({ command, inCheckout: checkout !== undefined }));
}

/** The lines of `text` but usage synopses (`usage: …` and its indented continuation lines). */
function withoutSynopses(text: string): string[] {
  let synopsis = false;
  return text.split("\n").filter((line) => {
    synopsis = /^\s*usage:/.test(line) || (synopsis && /^\s+\S/.test(line));
    return !synopsis;
  });
}

/** Checks one printer's text in `form`; returns the commands to run. */
function check(form: Form, { printer, text, least }: Printed) {
  const where = `${form.name} ${printer}`;
  const outside = withoutSynopses(text.replace(/`[^`\n]*`/g, ""))
    .filter((line) => /(^|[\s(])(deno|npx -y deno@\S+) task /.test(line));
  assert.deepEqual(outside, [], `${where}: a command outside backticks`);
  const commands = commandsIn(text);
  assert.ok(commands.length >= least, `${where} prints a next step: ${text}`);
  for (const { command } of commands) {
    if (form.name === "deno") assert.doesNotMatch(command, /\bnpx\b/, `${where}: ${command}`);
    else assert.doesNotMatch(command, /(^|[\s&;])deno task /, `${where}: ${command}`);
  }
  return commands;
}

/** Our `setup`, in each reader's form: the launcher's, or a checkout's task. */
const SETUP = /(^|[\s/])(portreeve-mcp|task) setup( |$)/;

/** The form's environment with an empty HOME of its own, Deno's cache where it was. */
async function dryRunEnv(form: Form, rig: Rig): Promise<Record<string, string>> {
  const home = `${rig.work}/home-${form.name}`;
  await Deno.mkdir(home);
  const cache = form.env.XDG_CACHE_HOME ?? `${form.env.HOME}/.cache`;
  return { ...form.env, HOME: home, DENO_DIR: form.env.DENO_DIR ?? `${cache}/deno` };
}

/** Runs what each printer prints, and what those commands print in turn, once each. */
async function walk(form: Form, rig: Rig, up: string, down: string): Promise<number> {
  const queue = (await printedBy(form, rig, up, down)).flatMap((printed) =>
    check(form, printed).map((found) => ({ ...found, printer: printed.printer }))
  );
  const ran = new Set<string>();
  const setupEnv = await dryRunEnv(form, rig);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (ran.has(next.command)) continue;
    ran.add(next.command);
    const cwd = next.inCheckout ? rig.checkout : rig.work;
    const where = `${form.name} ${next.printer}`;
    if (SETUP.test(next.command)) {
      // setup writes a host's files: it runs as printed plus --dry-run, in a HOME of its own.
      const said = await runPrinted(`${next.command} --dry-run`, cwd, setupEnv, where);
      assert.match(said, /^Dry run: nothing was run or changed\.$/m, `${where}: ${said}`);
      continue;
    }
    const said = await runPrinted(next.command, cwd, form.env, where);
    const printer = `${next.printer} → \`${next.command}\``;
    queue.push(
      ...check(form, { printer, text: said, least: 0 }).map((found) => ({ ...found, printer })),
    );
  }
  return ran.size;
}

Deno.test("hints: every printed next step runs as printed, for each form of reader", async () => {
  const env = await withSimulator();
  const rig = await setUpForms(env.socketPath);
  try {
    const ran = await Promise.all(rig.forms.map(async (form) => {
      // Each form has its own dead socket: the simulator commands it prints start there.
      const down = `${rig.work}/down-${form.name}/portreeve.sock`;
      await Deno.mkdir(`${rig.work}/down-${form.name}`, { mode: 0o700 }); // as PortReeve makes it
      return await walk(form, rig, env.socketPath, down);
    }));
    console.log(`ran ${ran.join(" + ")} printed commands (launcher, deno, npx)`);
  } finally {
    await rig.close();
    await env.cleanup();
  }
});
