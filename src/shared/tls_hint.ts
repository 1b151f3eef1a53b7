/**
 * Behind a proxy that inspects TLS, Deno refuses the proxy's certificate when it fetches
 * packages (`invalid peer certificate: UnknownIssuer`), where npm and npx, which trust the
 * system's certificate store, work. Deno trusts that store too with `DENO_TLS_CA_STORE=system`.
 * Whatever runs a Deno that may fetch (the task runner, the installer's bundle step) adds this
 * hint, for a person, when Deno's output shows such a failure.
 */

const CERTIFICATE_FAILURE = /invalid peer certificate|UnknownIssuer|certificate verify failed/i;

/** The hint for `output` (what Deno printed), or undefined when it shows no such failure. */
export function tlsHint(output: string, again: () => string): string | undefined {
  if (!CERTIFICATE_FAILURE.test(output)) return undefined;
  return "Deno could not verify the certificate of a server it fetched from; behind a proxy " +
    "that inspects TLS, tell Deno to trust the system's certificates as npm does and run it " +
    `again: \`${again()}\``;
}
