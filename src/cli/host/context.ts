/**
 * What `doctor --host` and `setup` know of where they run: the environment variables the
 * profiles' paths name (each read only when granted: a variable outside the grant counts as
 * unset), the system, and the folder the person is in (`$PWD`, as the shell keeps it: reading
 * the working folder itself would need a read grant for the whole of it).
 */
import { CWD_VARIABLE, type PlaceContext } from "../../profiles/entry_places.ts";

function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return undefined;
    }
    throw error;
  }
}

export function hostContext(): PlaceContext {
  const cwd = readEnv(CWD_VARIABLE);
  return { env: readEnv, os: Deno.build.os, cwd: cwd?.startsWith("/") ? cwd : null };
}
