/**
 * Which program is running: a `deno compile` binary, the copy `deno task install` made (or a
 * release folder, laid out the same way), or a
 * script run by `deno` (a source checkout or a bundle). `config` renders its exact command from
 * this, and printed next steps are spelled for it.
 */
import { fileURLToPath } from "node:url";
import { installLayout, installRootOf } from "./install_layout.ts";

export interface Installation {
  /**
   * "compiled": `execPath` is the bridge itself; "installed": the bundle under an install
   * root, started by `launcher`; "script": `execPath` is `deno` running `entryPath`.
   */
  kind: "compiled" | "installed" | "script";
  /** Absolute path of the running executable. */
  execPath: string;
  /** Absolute path of the entry module (main.ts or the bundle); null when compiled. */
  entryPath: string | null;
  /** The `portreeve-mcp` launcher on PATH; only for "installed". */
  launcher?: string;
}

/**
 * Detects the installation. Needs no permission: `Deno.execPath()`, `Deno.mainModule` and
 * `Deno.build` are free. `Deno.build.standalone` is the runtime's own answer; the
 * `deno-compile-` check on the module path covers runtimes that lack the field.
 */
export function detectInstallation(): Installation {
  const build: { standalone?: boolean } = Deno.build;
  const execPath = Deno.execPath();
  const standalone = build.standalone ?? Deno.mainModule.includes("/deno-compile-");
  if (standalone) return { kind: "compiled", execPath, entryPath: null };
  const entryPath = entryPathOf(Deno.mainModule);
  const root = entryPath === null ? null : installRootOf(execPath, entryPath);
  if (root !== null) {
    return { kind: "installed", execPath, entryPath, launcher: installLayout(root).launcher };
  }
  return { kind: "script", execPath, entryPath };
}

/** The entry file as a path, or null when it is not a local file (e.g. an https URL). */
export function entryPathOf(mainModule: string): string | null {
  if (!mainModule.startsWith("file:")) return null;
  return fileURLToPath(mainModule);
}
