/**
 * What a person can do when no daemon answers: start PortReeve, or try this bridge against
 * the SIMULATED daemon on a temporary socket (`deno task demo`). For people only (doctor, a
 * terminal): agents are never told to start anything, and the simulator never gets a real
 * PortReeve socket path.
 */
import { PORTREEVE_PROJECT, type ReaderForm, readerForm, taskStep } from "../shared/hints.ts";

export function startDaemonHint(form: ReaderForm = readerForm()): string {
  return `Start PortReeve (\`portreeve start\`; ${PORTREEVE_PROJECT}), or point the bridge at ` +
    "the socket it listens on with --socket or PORTREEVE_SOCKET. To try this bridge without " +
    `PortReeve, ${
      taskStep("demo", [], form)
    } runs it against a SIMULATED daemon on a temporary socket.`;
}

/** doctor's next step when nothing answers: the same words wherever doctor found it. */
export function startDaemonStep(form: ReaderForm = readerForm()): string {
  return `${startDaemonHint(form)} Then run doctor again.`;
}
