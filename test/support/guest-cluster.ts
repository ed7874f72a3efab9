/**
 * Helpers for tests of guest RKE2 clusters made by the provider (GuestCluster, its resources): fast emulator delays.
 */
import type { Rke2Delays } from '../../emulator/guest/rke2/options';

/** RKE2's phases on the emulator's clock, fast (ms): every node still installs, starts, joins and registers in order. */
export const FAST_RKE2: Partial<Rke2Delays> = { install: 150, serverStart: 200, agentStart: 100, nodeRegister: 100, nodeReady: 150, agentRetry: 250, serverRestart: 500, ccmInit: 100, nodeLost: 3000 };
