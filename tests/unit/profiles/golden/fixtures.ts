/** Deterministic installations and sockets shared by the profiles tests. */
import type { SocketLocation } from "../../../../src/shared/socket_location.ts";
import type { Installation } from "../../../../src/shared/installation.ts";

export const HOME_SOCKET: SocketLocation = {
  path: "/home/ada/.local/state/portreeve/portreeve.sock",
  source: "HOME",
};
export const ENV_SOCKET: SocketLocation = {
  path: "/run/user/1000/portreeve.sock",
  source: "PORTREEVE_SOCKET",
};

export const SCRIPT: Installation = {
  kind: "script",
  execPath: "/home/ada/.deno/bin/deno",
  entryPath: "/home/ada/src/portreeve-mcp/main.ts",
};
export const COMPILED: Installation = {
  kind: "compiled",
  execPath: "/usr/local/bin/portreeve-mcp",
  entryPath: null,
};

/** Spaces, both quote kinds, backslashes, shell metacharacters and non-ASCII text. */
const AWKWARD = `/home/O'Hara "Q" \\back\\slash/$(id) \`x\` *!/日本 🚀 é/`;
/** Control characters must survive too (TOML writes them as \uXXXX). */
const CONTROL = "/tmp/tab\there/new\nline/bell\u0007del\u007f/";

export interface Place {
  name: string;
  script: Installation;
  compiled: Installation;
  socket: SocketLocation;
}

export const PLACES: readonly Place[] = [
  { name: "plain", script: SCRIPT, compiled: COMPILED, socket: HOME_SOCKET },
  placeAt("awkward", AWKWARD),
  placeAt("control", CONTROL),
];

function placeAt(name: string, dir: string): Place {
  return {
    name,
    script: { kind: "script", execPath: `${dir}deno`, entryPath: `${dir}src/main.ts` },
    compiled: { kind: "compiled", execPath: `${dir}portreeve-mcp`, entryPath: null },
    socket: { path: `${dir}state/portreeve.sock`, source: "flag" },
  };
}

/** Runs a setup command in `shell`; see `shellWordsOfEach`. */
export async function shellWords(shell: string, setupCommand: string): Promise<string[]> {
  return (await shellWordsOfEach(shell, [setupCommand]))[0];
}

/**
 * Runs setup commands in one `shell` process, each with its program (the first word, a plain
 * name) replaced by an argument printer, and returns the words each program would have
 * received. Each command ends its record with a byte no argument here contains.
 */
export async function shellWordsOfEach(
  shell: string,
  setupCommands: readonly string[],
): Promise<string[][]> {
  const lines: string[] = [];
  for (const command of setupCommands) {
    const program = command.match(/^[a-z][a-z-]*(?= )/)?.[0];
    if (program === undefined) throw new Error(`no program name opens: ${command}`);
    lines.push(`${program}() { printf '%s\\0' "$@"; }`, command, `printf '\\001'`);
  }
  const output = await new Deno.Command(shell, {
    args: ["-c", lines.join("\n")],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`${shell} failed: ${stderr}`);
  const records = new TextDecoder().decode(output.stdout).split("\u0001").slice(0, -1);
  if (records.length !== setupCommands.length) throw new Error(`${shell}: lost a record`);
  return records.map((record) => record.split("\0").slice(0, -1));
}
