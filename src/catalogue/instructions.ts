/**
 * The server instructions: what every host shows its model before any call. They are the same
 * bytes on every start, whatever the label or run (a host keeps its cached prompt across
 * sessions), and short: hosts that load tools on demand resend them with every request or
 * search, and Codex's code mode repeats them beside every tool. Some hosts cut them to about
 * 250 characters, so the rule that matters most comes first: never free a port yourself; a
 * person approves every consequential change. Nothing about reading results: each result says
 * what it holds by itself.
 */
export const SERVER_INSTRUCTIONS =
  "Never kill a process or edit files to free a port; PortReeve assigns ports. Changes go " +
  "*_preview, the user's explicit approval, then *_execute. On an error, do its Next step. " +
  "Ids are UUIDs; paths are absolute.";

/** The longest the instructions may be, in UTF-8 bytes. */
export const INSTRUCTIONS_MAX_BYTES = 400;
