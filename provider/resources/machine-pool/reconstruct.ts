/**
 * Refresh's inputs, rebuilt from live VMs, so `pulumi preview --refresh` shows drift per property. Each VM is read
 * into the inputs it reflects (read-back.ts) and compared with the record (input-differences.ts, the comparison the
 * planner makes too); a property takes the recorded value while every VM agrees with it, and the first deviating
 * VM's value otherwise (with the user's spelling where it means the same thing), with one drift line per deviation.
 */
import type { VirtualMachine } from '../../client/objects';
import { naturalCompare } from '../../core/natural-order';
import { qualify, spellLike } from '../../core/object-ref';
import { sameQuantity } from '../../core/quantity';
import { type InputDifference, type MachineInput, VALUE_INPUTS, describeDifference, differingInputs, recordedReference } from './input-differences';
import { formatLabelValue } from './labels';
import type { DiskInputs, NetworkInputs } from './model';
import type { MachinePoolOutputs } from './outputs';
import { type MachineReadback, readBackMachine } from './read-back';

/** What reconstruction returns: the inputs to report and one line per deviation. */
export interface Reconstruction {
  inputs: Partial<MachinePoolOutputs>;
  drift: string[];
  /** Each input a VM reads back differently from the record (one drift line each). */
  differences: { machine: string; input: MachineInput }[];
}

/** The order drift is reported in: input by input, VM by VM. */
const ORDER: MachineInput[] = [...VALUE_INPUTS, 'poolName', 'zones', 'userData', 'initUserData', 'networkData'];

/**
 * reconstructInputs rebuilds the input properties from live VMs (not being deleted), starting from the
 * recorded outputs `previous` (whose `cloudInitHash` is the user-data digest every VM should carry).
 */
export function reconstructInputs(previous: MachinePoolOutputs, vms: VirtualMachine[], options: { importing?: boolean } = {}): Reconstruction {
  const ns = previous.namespace;
  const machines = vms.map(readBackMachine).sort((a, b) => naturalCompare(a.name, b.name));
  if (options.importing) return { inputs: imported(previous, machines), drift: [], differences: [] };
  const drift: string[] = [];
  const inputs: Partial<MachinePoolOutputs> = { count: machines.length };
  if (machines.length !== previous.count) drift.push(`pool ${ns}/${previous.name}: ${machines.length} VMs exist, ${previous.count} recorded`);

  const reference = recordedReference(previous);
  const judged = machines.map((m) => ({ m, diffs: differingInputs(m, reference, ns) }));
  const differences: Reconstruction['differences'] = [];
  for (const input of ORDER) {
    const found: { m: MachineReadback; d: InputDifference }[] = judged.flatMap(({ m, diffs }) => diffs.filter((d) => d.input === input).map((d) => ({ m, d })));
    if (found.length === 0) continue;
    for (const { m, d } of found) {
      drift.push(`VirtualMachine ${ns}/${m.name}: ${describeDifference(d, 'record')}`);
      differences.push({ machine: m.name, input });
    }
    const [first] = found;
    if ((VALUE_INPUTS as readonly string[]).includes(input)) {
      const key = input as (typeof VALUE_INPUTS)[number];
      (inputs as Record<string, unknown>)[key] = respell(key, first.d.live, previous[key], ns);
    } else if (input === 'poolName') {
      inputs.poolName = first.m.nodePool;
    } else if (input === 'zones') {
      // The recorded zones VMs sit in, then the others they sit in.
      const seen = seenZones(machines);
      inputs.zones = [...reference.zones.filter((z) => seen.includes(z)), ...seen.filter((z) => !reference.zones.includes(z))];
    }
    // Secret inputs (userData, initUserData, networkData): only digests compare, and a drift line never shows content.
  }
  return { inputs, drift, differences };
}

function seenZones(machines: MachineReadback[]): string[] {
  return [...new Set(machines.map((m) => m.zone).filter((z): z is string => z !== undefined))];
}

/** On import nothing is recorded: every property comes from the first VM, zones from every VM. */
function imported(previous: MachinePoolOutputs, machines: MachineReadback[]): Partial<MachinePoolOutputs> {
  const ns = previous.namespace;
  const inputs: Partial<MachinePoolOutputs> = { count: machines.length };
  const [first] = machines;
  if (!first) return inputs;
  for (const key of VALUE_INPUTS) (inputs as Record<string, unknown>)[key] = respell(key, first[key], previous[key], ns);
  // A node-pool label other than the default (the pool's name) is a poolName.
  const pooled = machines.find((m) => m.guestCluster !== undefined && m.nodePool !== undefined && m.nodePool !== formatLabelValue(previous.name));
  if (pooled) inputs.poolName = pooled.nodePool;
  const seen = seenZones(machines);
  if (seen.length) {
    const recorded = previous.zones ?? [];
    inputs.zones = [...recorded.filter((z) => seen.includes(z)), ...seen.filter((z) => !recorded.includes(z))];
  }
  return inputs;
}

/** Writes a live value with the user's spelling where it means the same thing. */
function respell(key: string, live: unknown, recorded: unknown, ns: string): unknown {
  if (key === 'disks') {
    const prev = (recorded as DiskInputs[] | undefined) ?? [];
    return (live as DiskInputs[]).map((d, i) => {
      const p = prev[i];
      const out: DiskInputs = { ...d };
      if (d.image) out.image = spellLike(qualify(d.image, ns), p?.image, ns);
      if (p && sameQuantity(p.size, d.size)) out.size = p.size;
      return out;
    });
  }
  if (key === 'networks') {
    const prev = (recorded as NetworkInputs[] | undefined) ?? [];
    return (live as NetworkInputs[]).map((n, i) => ({ ...n, network: spellLike(qualify(n.network, ns), prev[i]?.network, ns) }));
  }
  if (key === 'sshKeys') {
    const prev = (recorded as string[] | undefined) ?? [];
    return (live as string[]).map((k, i) => spellLike(qualify(k, ns), prev[i], ns));
  }
  return live;
}
