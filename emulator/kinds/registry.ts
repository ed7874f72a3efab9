/** An immutable KindRegistry over a fixed list of KindInfo entries. */
import { apiVersionOf, KindInfo, KindRegistry } from '../api/types';

/**
 * StaticKindRegistry answers lookups by apiVersion+kind and by group+version+plural. Construction fails
 * when two entries claim the same kind or resource, since the HTTP layer could not tell them apart.
 */
export class StaticKindRegistry implements KindRegistry {
  private readonly kinds: KindInfo[];
  private readonly byKindKey = new Map<string, KindInfo>();
  private readonly byResourceKey = new Map<string, KindInfo>();

  constructor(kinds: KindInfo[]) {
    this.kinds = [...kinds];
    for (const k of this.kinds) {
      const kindKey = `${apiVersionOf(k)}|${k.kind}`;
      const resourceKey = `${k.group}|${k.version}|${k.plural}`;
      if (this.byKindKey.has(kindKey)) {
        throw new Error(`kind registry: ${k.kind} (${apiVersionOf(k)}) is registered twice; remove the duplicate entry`);
      }
      if (this.byResourceKey.has(resourceKey)) {
        throw new Error(`kind registry: resource ${k.plural} in ${apiVersionOf(k)} is registered twice; remove the duplicate entry`);
      }
      this.byKindKey.set(kindKey, k);
      this.byResourceKey.set(resourceKey, k);
    }
  }

  /** Every entry, in registration order. */
  all(): KindInfo[] {
    return [...this.kinds];
  }

  /** By apiVersion ('v1', 'kubevirt.io/v1') and kind ('VirtualMachine'). */
  byKind(apiVersion: string, kind: string): KindInfo | undefined {
    return this.byKindKey.get(`${apiVersion}|${kind}`);
  }

  /** By group ('' for core), version and plural. */
  byResource(group: string, version: string, plural: string): KindInfo | undefined {
    return this.byResourceKey.get(`${group}|${version}|${plural}`);
  }
}
