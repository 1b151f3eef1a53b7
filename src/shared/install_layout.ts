/**
 * Where `deno task install` puts things under its root (`$PORTREEVE_MCP_INSTALL_ROOT`, else
 * `~/.deno`, whose bin folder Deno's own installer puts on PATH):
 *
 *   ROOT/bin/portreeve-mcp          the launcher (a POSIX shell script) users and hosts run
 *   ROOT/lib/portreeve-mcp/deno     a private copy of the Deno executable it runs with
 *   ROOT/lib/portreeve-mcp/main.js  the self-contained bundle (plus its code-split chunks)
 *   ROOT/lib/portreeve-mcp/manifest.json  what `install` wrote, with content hashes
 *
 * A release archive's folder `portreeve-mcp-<target>/` has the same layout (no manifest).
 *
 * The installed bridge recognises itself from this layout alone: it may read nothing but its
 * socket, so it cannot look for the launcher on disk.
 */
export const LAUNCHER_NAME = "portreeve-mcp";

export interface InstallLayout {
  root: string;
  launcher: string;
  lib: string;
  deno: string;
  bundle: string;
  manifest: string;
}

export function installLayout(root: string): InstallLayout {
  const lib = `${root}/lib/${LAUNCHER_NAME}`;
  return {
    root,
    launcher: `${root}/bin/${LAUNCHER_NAME}`,
    lib,
    deno: `${lib}/deno`,
    bundle: `${lib}/main.js`,
    manifest: `${lib}/manifest.json`,
  };
}

/** The install root whose layout `execPath` and `entryPath` sit in, or null. */
export function installRootOf(execPath: string, entryPath: string): string | null {
  const suffix = `/lib/${LAUNCHER_NAME}/main.js`;
  if (!entryPath.endsWith(suffix)) return null;
  const root = entryPath.slice(0, -suffix.length);
  return installLayout(root).deno === execPath ? root : null;
}
