/**
 * The resource conformance contract: what every resource registers so the suite (contract.test.ts,
 * references.test.ts) can drive it through Pulumi's real dynamic-provider host. A resource is done only when
 * its fixture is registered in fixtures/index.ts and every case passes (docs/architecture.md "The resource contract").
 */
import type { HarvesterClient } from '../../provider/client/harvester-client';
import type { Emulator, EmulatorOptions, FaultRule } from '../../emulator';

export type Raw = Record<string, unknown>;

/** Inputs as a program writes them (no `__provider`; the suite adds it). */
export type ProgramInputs = Raw;

/** A way to make an apply fail after its first write, undone by `restore`. */
export interface FailAfterWrite {
  /** Inputs whose create fails after writing. */
  createInputs(name: string): ProgramInputs;
  /** Given the inputs of a healthy resource, inputs whose update fails after writing. */
  updateInputs(name: string, created: ProgramInputs): ProgramInputs;
  /** Emulator faults active during the failing call (none: the inputs alone make it fail). */
  faults?: FaultRule[];
  /** The same, on the emulated guest cluster's API server. */
  guestFaults?: FaultRule[];
}

/** A refusal the resource makes at apply time (create or update), which check must make first. */
export interface Refusal {
  what: string;
  /** Puts the cluster in the state that causes the refusal; returns the undo. */
  arrange(client: HarvesterClient, name: string): Promise<() => Promise<void>>;
  /** The inputs refused. */
  inputs(name: string): ProgramInputs;
  /** The property check must name (the top-level input; a nested path of it counts). */
  property: string;
}

/** One optional input turned off or removed (case 9): `edit` takes the inputs that set it and returns them without it. */
export interface OptionalInputOff {
  /** The input, as a path when nested (`route.dhcpServer`, `hosts.<host>.region`). */
  input: string;
  edit(inputs: ProgramInputs): ProgramInputs;
  /** Inputs that set it, when not the fixture's `optionalInputs.inputs` (e.g. another shape of the resource). */
  from?(name: string): ProgramInputs;
}

/** One resource under the contract. */
export interface ConformanceFixture {
  /** SDK class, e.g. "HarvesterIPPool". */
  className: string;
  /** Export of harvester-iac/provider. */
  exportName: string;
  /** The id the resource named `name` has (what import takes). */
  id(name: string): string;
  /** Options the resource's emulator needs besides the defaults (e.g. a guest cluster). */
  emulator?: EmulatorOptions;
  /** Makes what every test of the resource needs (e.g. a pool for load balancers); returns the undo. */
  setup?(client: HarvesterClient, kubeconfig: string, emulator: Emulator): Promise<() => Promise<void>>;
  /** Valid inputs, one variant per shape the resource supports; `name` is unique per test. */
  variants: { shape: string; inputs(name: string): ProgramInputs }[];
  /** What of the resource with these inputs exists on the cluster (objects, labels): empty once destroyed. */
  leftovers(client: HarvesterClient, inputs: ProgramInputs): Promise<string[]>;
  /** An edit made behind Pulumi's back (as kubectl would), and the input it must show as drift on. */
  outOfBandEdit: { property: string; apply(client: HarvesterClient, inputs: ProgramInputs): Promise<void> };
  failAfterWrite: FailAfterWrite;
  /**
   * Given the inputs of a healthy resource (variants[0]), inputs `up` applies in place (no replace), making the
   * writes an update makes (case 8 refuses each of them in turn): several where the resource has several objects.
   */
  inPlaceUpdate(name: string, created: ProgramInputs): ProgramInputs;
  /** Case 9: every optional input a program may turn off or remove, from inputs that set them all. */
  optionalInputs: { inputs(name: string): ProgramInputs; off: OptionalInputOff[] };
  refusals: Refusal[];
  /** An object of the same name without our ownership labels; returns a probe and its removal. */
  foreign(client: HarvesterClient, name: string): Promise<{ untouched(): Promise<boolean>; remove(): Promise<void> }>;
  /** Secret input values the variants use (must never appear outside outputs of the same name); may be filled by setup. */
  secretValues: string[];
  /** The variants carry secret values (case 7 runs for them). */
  variantsCarrySecrets: boolean;
  /**
   * Why this shape cannot be imported by id alone, if it cannot (the suite then checks that such a read answers
   * "not found" cleanly instead of guessing).
   */
  importByIdUnsupported?: string;
  /** Names of the secret inputs. */
  secretInputs: readonly string[];
  /**
   * Why this resource writes nothing (a wait): case 8 then checks that its create and update write nothing at all,
   * on Harvester and on the guest, instead of failing each write in turn.
   */
  writesNothing?: string;
}
