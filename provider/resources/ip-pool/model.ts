/**
 * The HarvesterIPPool inputs and outputs: the one source of truth (types, check, schema.json, docs/resources).
 * An IPPool (`loadbalancer.harvesterhci.io/v1beta1`, cluster-scoped) hands out the addresses of Harvester load
 * balancers with `ipam: pool`; its `status.allocated` is the IPAM record and is never written by us
 * (docs/design/harvester-load-balancer.md §"The objects").
 */
import { z } from 'zod';
import { referenceInput } from '../../core/object-ref';
import { timeoutsInput } from '../../core/timeouts';
import { inputsFlagged } from '../../core/input-flags';
import { connectionInputs } from '../../core/connection-inputs';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** One address range of the pool. */
export const ipRangeSchema = z.strictObject({
  subnet: z.string().describe('IPv4 subnet in CIDR notation, e.g. "192.168.100.0/24". Required.'),
  rangeStart: z.string().optional().describe(
    'First address handed out: inside the subnet, neither its network nor its broadcast address (so none in a /31 or /32). Default: the subnet\'s first address after the network address (a /32: its one address; a /31 hands out its network address alone).',
  ),
  rangeEnd: z.string().optional().describe('Last address handed out: inside the subnet, not its broadcast address, not before rangeStart. Default: the address before the broadcast address.'),
  gateway: z.string().optional().describe('Gateway of the subnet, inside it and outside rangeStart…rangeEnd. Default: none given (Harvester then takes the subnet\'s first address after the network address as the gateway and skips it; a /32 has none).'),
});

/** Who may take addresses from the pool. */
export const scopeSchema = z.strictObject({
  project: z.string().min(1).default('*').describe('Rancher project ("*" any). Default "*".'),
  namespace: z.string().min(1).default('*').describe('Namespace of the load balancer ("*" any). Default "*".'),
  guestCluster: z.string().min(1).default('*').describe('Guest cluster name ("*" any). Default "*".'),
});

export const selectorSchema = z.strictObject({
  network: referenceInput('VM network', 'default/vm-net').optional().describe(
    'VM network ("namespace/name", or a bare name in the default namespace: the pool is cluster-scoped) whose load balancers this pool serves. ' +
      'Default: none (any network).',
  ),
  priority: z.number().int().min(0).max(4294967295).default(0).describe(
    'Among matching pools the highest priority wins; a non-zero priority must be unique among pools, and two priority-0 pools on the same network may not share a scope (the global pool aside). Default 0.',
  ),
  scope: z.array(scopeSchema).default([]).describe(
    'Project/namespace/guest-cluster tuples allowed to use the pool; one tuple of "*"s makes it the global pool (at most one exists). Default: none.',
  ),
});

/** The HarvesterIPPool inputs (zod schema). */
export const ipPoolSchema = z.strictObject({
  ...connectionInputs,
  name: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "lb-pool"' }).meta({ replaceOnChanges: true }).describe(
    'IPPool name (cluster-scoped). Required. A change replaces the pool (the old one goes first: its allocations must be released).',
  ),
  description: z.string().max(1024).optional().describe('Free text shown in the Harvester UI. Default none. A change updates in place.'),
  ranges: z.array(ipRangeSchema).min(1, { error: 'must list at least one range, e.g. [{ subnet: "192.168.100.0/24" }]' }).describe(
    'Address ranges. No two may overlap, here or with another pool. Required. A change updates in place; addresses already allocated must stay inside.',
  ),
  selector: selectorSchema.default({ priority: 0, scope: [] }).describe('Which load balancers draw from this pool. Default: priority 0, no network, no scope. A change updates in place.'),
  timeouts: timeoutsInput(
    {
      create: ['2m', 'Until the pool is Ready.'],
      update: ['2m', 'Until the pool is Ready again.'],
      delete: ['2m', 'Until the pool is gone.'],
    },
    'Bounds of every wait. Default 2m each.',
  ),
});

export type IPPoolInputs = z.output<typeof ipPoolSchema>;
export type IPPoolArgs = z.input<typeof ipPoolSchema>;

/** The HarvesterIPPool outputs: the inputs (defaults applied) plus the pool's state. */
export const ipPoolOutputsSchema = ipPoolSchema.extend({
  total: z.number().int().describe('Addresses the ranges hold.'),
  available: z.number().int().describe('Addresses not allocated.'),
  allocated: z.record(z.string(), z.string()).describe('Allocated address → load balancer ("namespace/name").'),
  ready: z.boolean().describe('The pool\'s Ready condition is True.'),
  message: z.string().describe('The Ready condition\'s message (empty when ready).'),
  drift: z.array(z.string()).describe('Differences found by the last read between the live pool and the recorded inputs.'),
});
export type IPPoolOutputs = z.output<typeof ipPoolOutputsSchema>;

export const SECRET_INPUTS = inputsFlagged(ipPoolSchema, 'secret');
export const REPLACE_INPUTS = inputsFlagged(ipPoolSchema, 'replaceOnChanges');
export const OUTPUT_ONLY: readonly string[] = Object.keys(ipPoolOutputsSchema.shape).filter((k) => !(k in ipPoolSchema.shape));
