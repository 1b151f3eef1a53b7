/**
 * The server instructions: what every host shows its model before any call. They are the same
 * bytes on every start, whatever the label or run (a host keeps its cached prompt across
 * sessions), and short: hosts that load tools on demand resend them with every request or
 * search (Codex's tool_search line, its namespace description), and Codex's code mode repeats
 * them beside every tool; the reference's are 93 bytes. So they hold only the two rules a model
 * must know before it calls anything: never free a port yourself, and a person approves every
 * change (an *_execute needs its *_preview's receipt, which the schemas say). Nothing a model
 * learns when it needs it: an error states its own next step, the inputs that need an absolute
 * path or a UUID of the caller's say so, and each result says what it holds by itself.
 */
export const SERVER_INSTRUCTIONS =
  "Never kill a process to free a port; *_execute only on user approval.";

/** The longest the instructions may be, in UTF-8 bytes. */
export const INSTRUCTIONS_MAX_BYTES = 400;
