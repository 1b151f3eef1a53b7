/**
 * Whether this process may use its socket. The confined bridge is granted exactly one socket
 * path; `--socket` pointing anywhere else would only fail later with a raw permission error,
 * so we detect it up front and say which path the grant names.
 */
export { grantProblem } from "../hints.ts";
