/**
 * Where `deno task install` puts things under its root (`$PORTREEVE_MCP_INSTALL_ROOT`, else
 * `~/.deno`, whose bin folder Deno's own installer puts on PATH):
 *
 *   ROOT/bin/portreeve-mcp          the launcher (a POSIX shell script) users and hosts run
 *   ROOT/lib/portreeve-mcp/deno     a private copy of the Deno executable it runs with
 *   ROOT/lib/portreeve-mcp/main.js  the self-contained bundle (plus its code-split chunks)
 *   ROOT/lib/portreeve-mcp/manifest.json  what `install` wrote, with content hashes
 *
 * A release archive's folder `portreeve-mcp-<target>/` has the same layout (no manifest), and so
 * has the npm package, without lib/portreeve-mcp/deno: it runs npm's Deno.
 *
 * The installed bridge recognises itself from this layout alone: it may read nothing but its
 * socket, so it cannot look for the launcher on disk.
 */
export const LAUNCHER_NAME = "portreeve-mcp";

/** The npm package that installs the launcher, the bundle and npm's Deno (scripts/npm_package.ts). */
export const NPM_PACKAGE = "@portreeve/mcp";

interface InstallLayout {
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

/**
 * The install root whose layout `execPath` and `entryPath` sit in, or null. The npm package has
 * the same layout without a private Deno: its launcher runs npm's, from a node_modules folder
 * in the package's root or above it (`npmDenoOf`).
 */
export function installRootOf(execPath: string, entryPath: string): string | null {
  const suffix = `/lib/${LAUNCHER_NAME}/main.js`;
  if (!entryPath.endsWith(suffix)) return null;
  const root = entryPath.slice(0, -suffix.length);
  if (installLayout(root).deno === execPath) return root;
  const base = npmDenoOf(execPath);
  return base !== null && (root === base || root.startsWith(`${base}/`)) ? root : null;
}

/**
 * The folder whose node_modules holds `execPath` when it is npm's Deno: the `deno` package's
 * copy (node_modules/deno/deno) or its per-platform package's (node_modules/@deno/T/deno).
 */
function npmDenoOf(execPath: string): string | null {
  return execPath.match(/^(.*)\/node_modules\/(?:deno|@deno\/[^/]+)\/deno$/)?.[1] ?? null;
}
