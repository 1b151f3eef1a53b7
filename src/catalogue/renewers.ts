/**
 * How custody renews what it holds: the daemon's renew routes (declared here with their reply
 * schemas, as tools declare theirs), through the same client as every tool. Errors keep their
 * `code` and `retryable`, which custody uses to tell a daemon that is briefly away (keep the
 * credential, retry) from a lease that is gone (erase it).
 *
 * Renewals travel in the client's custody lane (their bodies carry the credential), soonest
 * expiry first. Custody decides how long to wait for an answer (until the credential expires),
 * so the client's own deadline is only a backstop past the longest TTL the protocol allows.
 */
import { z } from "zod";
import type { Renewers } from "../custody/mod.ts";
import type { DaemonClient } from "../daemon/client.ts";
import { Capability } from "../daemon/capabilities.ts";
import { coordinates, post } from "./routes.ts";
import { timestamp, uuid } from "./shapes.ts";
import { launcherOperation } from "./records.ts";

export interface LauncherRenewalResult {
  deadlineAt: number;
  renewAfterMilliseconds: number;
  operation: z.output<typeof launcherOperation>;
}

/** Longest lease TTL the protocol allows (120 s), plus the launcher's 30 s span and slack. */
const RENEWAL_BACKSTOP_MS = 150_000;

export const RENEWAL_ROUTES = {
  lease: post(
    "/v1/leases/{leaseId}/renew",
    z.looseObject({ expiresAt: timestamp() }),
    coordinates("extends a pending lease"),
  ),
  activation: post(
    "/v1/stack-activations/{activationId}/renew",
    z.looseObject({
      leases: z.array(z.looseObject({ leaseId: uuid(), expiresAt: timestamp() })),
    }),
    coordinates("extends an activation's pending leases"),
  ),
  launcher: post(
    "/v1/launcher-operations/{operationId}/renew",
    z.looseObject({ operation: launcherOperation, renewAfterMilliseconds: z.int() }),
    coordinates("extends a launcher operation's deadline"),
    // The launcher_operation_renew tool requests it too; custody's renewals ignore the check.
    {
      tool: "portreeve_launcher_operation_get",
      how:
        "with this operationId, to see its deadline (a heartbeat is safe to repeat while active)",
    },
  ),
};

export function daemonRenewers(daemon: DaemonClient): Renewers<LauncherRenewalResult> {
  const { lease, activation, launcher } = RENEWAL_ROUTES;
  return {
    async renewLease(leaseId, token, signal, dueAt) {
      const data = await daemon.request(lease, {
        params: { leaseId },
        body: { leaseToken: token },
        signal,
        capabilities: [Capability.twoPhaseAllocation],
        custodyDueAt: dueAt,
        timeoutMs: RENEWAL_BACKSTOP_MS,
      });
      return { expiresAt: Date.parse(data.expiresAt) };
    },
    async renewActivation(activationId, leases, signal, dueAt) {
      const data = await daemon.request(activation, {
        params: { activationId },
        body: { leases: leases.map((l) => ({ leaseId: l.leaseId, leaseToken: l.token })) },
        signal,
        capabilities: [Capability.stackActivations],
        custodyDueAt: dueAt,
        timeoutMs: RENEWAL_BACKSTOP_MS,
      });
      return {
        leases: data.leases.map((l) => ({
          leaseId: l.leaseId,
          expiresAt: Date.parse(l.expiresAt),
        })),
      };
    },
    async renewLauncher(operationId, credential, signal, dueAt) {
      const data = await daemon.request(launcher, {
        params: { operationId },
        body: { credential },
        signal,
        capabilities: [Capability.launcherOperations],
        custodyDueAt: dueAt,
        timeoutMs: RENEWAL_BACKSTOP_MS,
      });
      return {
        deadlineAt: Date.parse(data.operation.deadlineAt),
        renewAfterMilliseconds: data.renewAfterMilliseconds,
        operation: data.operation,
      };
    },
  };
}
