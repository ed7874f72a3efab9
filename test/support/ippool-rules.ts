/**
 * The IPPool rules of upstream's webhook and allocator (load-balancer-harvester pkg/webhook/ippool/validator.go,
 * pkg/ipam/allocator.go and selector.go; CNI host-local range.go) as one table, run on both sides with the same
 * expected outcome: by the emulator's webhook and allocator (test/emulator/harvester-ippool-rules.test.ts) and by
 * the provider's check (test/unit/provider/ip-pool/webhook-rules.test.ts). The new pool is written as the
 * provider writes it (its inputs, defaults applied); the pools already there are raw specs, as anyone writes them.
 */

/** One rule. */
export interface IPPoolRuleCase {
  label: string;
  /** Pools created first (raw specs; each accepted by the webhook). */
  existing?: { name: string; spec: Record<string, unknown> }[];
  /** The new pool's HarvesterIPPool inputs (name "p"). */
  args: Record<string, unknown>;
  /** Refused: the check failure's property, and the webhook's reason after "can't create IP pool p because ". */
  refused?: { property: string; webhook: string | RegExp };
  /** Accepted: addresses the pool hands out (status.total; the check's count), and the first one allocated. */
  accepted?: { total: number; first?: string };
}

const team = (extra: Record<string, unknown> = {}) => ({ scope: [{ namespace: 'team' }], ...extra });
const GLOBAL = { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] };
const other = (selector: Record<string, unknown>, ranges: Record<string, unknown>[] = [{ subnet: '10.99.0.0/24' }]) => [{ name: 'other', spec: { ranges, selector } }];

export const IPPOOL_RULE_CASES: IPPoolRuleCase[] = [
  {
    label: 'two priority-0 pools whose scopes match (ours "*" matches their unset project and guest cluster)',
    existing: other(team()),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: team() },
    refused: { property: 'selector.scope[0]', webhook: 'scope selector is same as the pool other with priority 0 Project * Namespace team GuestCluster *, set a different priority or scope' },
  },
  {
    label: 'a second scope tuple their "*" matches (on the same guest cluster)',
    existing: other({ scope: [{ namespace: '*', guestCluster: 'g1' }] }),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { scope: [{ namespace: 'ops', guestCluster: 'g2' }, { namespace: 'team', guestCluster: 'g1' }] } },
    refused: { property: 'selector.scope[1]', webhook: 'scope selector is same as the pool other with priority 0 Project * Namespace team GuestCluster g1, set a different priority or scope' },
  },
  {
    label: 'the same scope on another network',
    existing: other(team({ network: 'default/vm-net' })),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: team() },
    accepted: { total: 253, first: '10.1.0.2' },
  },
  {
    label: 'the same namespace in different projects',
    existing: other({ scope: [{ project: 'p1', namespace: 'team' }] }),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { scope: [{ project: 'p2', namespace: 'team' }] } },
    accepted: { total: 253 },
  },
  {
    label: 'the same scope with a non-zero priority',
    existing: other(team()),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: team({ priority: 3 }) },
    accepted: { total: 253 },
  },
  {
    label: 'a priority-0 scope the global pool covers (the global pool is not compared)',
    existing: other(GLOBAL),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: team() },
    accepted: { total: 253 },
  },
  {
    label: 'the non-zero priority of the global pool (the global pool is not compared)',
    existing: other({ ...GLOBAL, priority: 3 }),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: team({ priority: 3 }) },
    accepted: { total: 253 },
  },
  {
    label: 'a non-zero priority already taken',
    existing: other({ scope: [{ namespace: 'a' }], priority: 7 }),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { scope: [{ namespace: 'b' }], priority: 7 } },
    refused: { property: 'selector.priority', webhook: "the priority can't be the same as the pool other" },
  },
  {
    label: 'a second global pool',
    existing: other(GLOBAL),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { scope: [{}] } },
    refused: { property: 'selector.scope', webhook: 'there is already a global IP pool: other' },
  },
  {
    label: 'a global pool beside a priority-0 pool (only another global pool is compared)',
    existing: other(team()),
    args: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { scope: [{}] } },
    accepted: { total: 253 },
  },
  {
    label: 'a range whose start is the end of another pool\'s range (one shared address overlaps)',
    existing: other({}, [{ subnet: '10.1.0.0/24', rangeStart: '10.1.0.10', rangeEnd: '10.1.0.20' }]),
    args: { ranges: [{ subnet: '10.1.0.0/24', rangeStart: '10.1.0.20', rangeEnd: '10.1.0.30' }] },
    refused: { property: 'ranges[0]', webhook: /^the ranges \[\{RangeStart:10\.1\.0\.20 RangeEnd:10\.1\.0\.30 .*\}\] overlap with other pools$/ },
  },
  {
    label: 'a range right after another pool\'s range',
    existing: other({}, [{ subnet: '10.1.0.0/24', rangeStart: '10.1.0.10', rangeEnd: '10.1.0.20' }]),
    args: { ranges: [{ subnet: '10.1.0.0/24', rangeStart: '10.1.0.21', rangeEnd: '10.1.0.30' }] },
    accepted: { total: 10, first: '10.1.0.21' },
  },
  {
    label: 'two ranges of the pool sharing one address',
    args: { ranges: [{ subnet: '10.1.0.0/24', rangeStart: '10.1.0.10', rangeEnd: '10.1.0.20' }, { subnet: '10.1.0.0/24', rangeStart: '10.1.0.5', rangeEnd: '10.1.0.10' }] },
    refused: { property: 'ranges[1]', webhook: /^there are overlaps between range \{RangeStart:10\.1\.0\.10 RangeEnd:10\.1\.0\.20 .*\} and \{RangeStart:10\.1\.0\.5 RangeEnd:10\.1\.0\.10 / },
  },
  { label: 'a /32: its one address, no gateway', args: { ranges: [{ subnet: '10.1.0.7/32' }] }, accepted: { total: 1, first: '10.1.0.7' } },
  {
    label: 'a /32 naming its address',
    args: { ranges: [{ subnet: '10.1.0.7/32', rangeStart: '10.1.0.7' }] },
    refused: { property: 'ranges[0].rangeStart', webhook: 'invalid range start 10.1.0.7: IP 10.1.0.7 is the network address' },
  },
  { label: 'a /31: one address, its network address (the other is the default gateway)', args: { ranges: [{ subnet: '10.1.0.4/31' }] }, accepted: { total: 1, first: '10.1.0.4' } },
  {
    label: 'a /31 naming its network address',
    args: { ranges: [{ subnet: '10.1.0.4/31', rangeStart: '10.1.0.4' }] },
    refused: { property: 'ranges[0].rangeStart', webhook: 'invalid range start 10.1.0.4: IP 10.1.0.4 is the network address' },
  },
  {
    label: 'a /31 naming its broadcast address',
    args: { ranges: [{ subnet: '10.1.0.4/31', rangeEnd: '10.1.0.5' }] },
    refused: { property: 'ranges[0].rangeEnd', webhook: 'invalid range end 10.1.0.5: IP 10.1.0.5 is the broadcast address' },
  },
  {
    label: 'a /31 with a gateway',
    args: { ranges: [{ subnet: '10.1.0.4/31', gateway: '10.1.0.5' }] },
    refused: { property: 'ranges[0].gateway', webhook: 'invalid gateway 10.1.0.5: IP 10.1.0.5 is the broadcast address' },
  },
  { label: 'a /30: one address (network + 2; network + 1 is the gateway)', args: { ranges: [{ subnet: '10.1.0.8/30' }] }, accepted: { total: 1, first: '10.1.0.10' } },
  {
    label: 'a /30 naming its broadcast address',
    args: { ranges: [{ subnet: '10.1.0.8/30', rangeStart: '10.1.0.9', rangeEnd: '10.1.0.11' }] },
    refused: { property: 'ranges[0].rangeEnd', webhook: 'invalid range end 10.1.0.11: IP 10.1.0.11 is the broadcast address' },
  },
  { label: 'a /30 with a gateway outside its range', args: { ranges: [{ subnet: '10.1.0.8/30', rangeStart: '10.1.0.9', rangeEnd: '10.1.0.9', gateway: '10.1.0.10' }] }, accepted: { total: 1, first: '10.1.0.9' } },
];
