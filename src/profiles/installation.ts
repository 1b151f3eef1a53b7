/** Which program is running `config`: a `deno compile` binary, or a script run by `deno`. */
import { fileURLToPath } from "node:url";

export interface Installation {
  /** "compiled": `execPath` is the bridge itself; "script": `execPath` is `deno`. */
  kind: "compiled" | "script";
  /** Absolute path of the running executable. */
  execPath: string;
  /** Absolute path of the entry module (main.ts or the bundle); null when compiled. */
  entryPath: string | null;
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
  return { kind: "script", execPath, entryPath: entryPathOf(Deno.mainModule) };
}

/** The entry file as a path, or null when it is not a local file (e.g. an https URL). */
export function entryPathOf(mainModule: string): string | null {
  if (!mainModule.startsWith("file:")) return null;
  return fileURLToPath(mainModule);
}
