/**
 * A person, by default (issue 27), over real stdio with the real `serve` process and a real
 * process listening on a real port that a confirmed run holds:
 *
 * - the attack: a person declines a reclaim receipt on bridge A; bridge B, started with the
 *   default flags by a host that cannot ask, is handed A's receipt — refused, nothing sent,
 *   the process lives. `--approval off` and `auto` on B refuse it too: a receipt executes
 *   only through the bridge process that issued it.
 * - a host without elicitation and the default flags previews the reclaim itself: the
 *   execute is refused naming the opt-in, nothing reaches the daemon, the process lives.
 */
import { defaultApprovalCases } from "./default_approval_cases.ts";

defaultApprovalCases("legacy");
