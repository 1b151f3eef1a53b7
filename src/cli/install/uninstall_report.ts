/**
 * What `uninstall` tells the person: what it removed, what it left and why, what an
 * `install --force` once moved aside (theirs to look at; never removed), and what to do next —
 * take the bridge's entry out of each agent host (a host still listing it starts a server
 * that is gone), and for a file it kept because someone changed it, how to finish.
 */
import { LAUNCHER_NAME } from "../../shared/install_layout.ts";
import { SERVER_NAME } from "../../shared/options.ts";
import { shellQuote } from "../../shared/shell.ts";
import { commandLine } from "../../shared/hints.ts";
import { type HostProfile, removalStep } from "../../profiles/mod.ts";
import { LIB_PATH } from "./manifest.ts";
import type { UninstallReport } from "./uninstaller.ts";

interface UninstallOutcome {
  lines: string[];
  /** 0 when nothing of the installer's is left, else 1. */
  code: number;
}

/** `again` is the uninstall command, pasteable, in backticks. */
export function uninstallOutcome(
  root: string,
  report: UninstallReport,
  hosts: readonly HostProfile[],
  again: string,
): UninstallOutcome {
  const { removed, left, movedAside } = report;
  if (removed.length === 0 && left.length === 0 && movedAside.length === 0) {
    return {
      lines: [`Nothing to remove: no ${LAUNCHER_NAME} installation under ${root}.`],
      code: 0,
    };
  }
  const lines: string[] = [];
  if (removed.length > 0) lines.push("Removed:", ...removed.map((path) => `  ${path}`));
  if (left.length > 0) lines.push("Left:", ...left.map(({ path, why }) => `  ${path}: ${why}`));
  if (movedAside.length > 0) {
    lines.push(
      "Moved aside by an earlier `install --force` (yours; uninstall never removes them):",
    );
    for (const { path, original, originalFree } of movedAside) {
      const restorable = originalFree && !original.startsWith(`${root}/${LIB_PATH}/`);
      lines.push(
        restorable
          ? `  ${path}: was ${original}; if it is yours, put it back: \`mv ${shellQuote(path)} ${
            shellQuote(original)
          }\``
          : `  ${path}: was ${original}; look at it, then delete it yourself`,
      );
    }
  }
  const next: string[] = [];
  for (const { path } of left.filter((entry) => entry.edited)) {
    next.push(
      `- ${path} was changed after install wrote it, so it was kept (it may hold your work): ` +
        `look at it, delete it yourself (\`rm ${shellQuote(path)}\`), then run ${again} again ` +
        "to remove the rest.",
    );
  }
  for (const { path } of left.filter((entry) => entry.unfinished)) {
    next.push(
      `- ${path} is a copy an install did not finish: run the install again (it recognises ` +
        `such a copy and removes it), then ${again}; or delete it yourself ` +
        `(\`rm ${shellQuote(path)}\`).`,
    );
  }
  if (removed.length > 0) {
    const ids = hosts.filter((host) => host.entry !== null).map((host) => host.id);
    next.push(
      `- Take the ${SERVER_NAME} entry out of each agent host you added it to, or the host ` +
        `keeps starting a server that is gone: \`${
          commandLine(["setup", "--host", "NAME", "--remove"])
        }\` takes out exactly what setup wrote (NAME: ${ids.join(", ")}); or by hand:`,
      ...hosts.map((host) => `    ${removalStep(host)}`),
    );
  }
  if (next.length > 0) lines.push("Next:", ...next);
  // A folder left only because it holds someone else's files is not a failure.
  const ownFileLeft = left.some(({ path }) => !path.endsWith("/"));
  return { lines, code: ownFileLeft ? 1 : 0 };
}
