import { RUN_ENV } from "./permissions.ts";

/**
 * The environment of every child process this project starts (demo, tests, bench): the
 * caller's own plus what the child needs on top. Deno itself needs variables such as
 * DENO_DIR, DENO_CERT, NODE_EXTRA_CA_CERTS and the proxy settings to find its cache and reach
 * the network; a stripped environment breaks it in ways that look like a server crash. The
 * confined bridge still reads only the variables its permission set allows.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...Deno.env.toObject(), ...RUN_ENV, ...extra };
}
