/**
 * Server-side printing: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` gets a meta.k8s.io Table
 * (docs/design/kube-api.md §14). Columns are Name plus the kind's printer columns (or Age when it has
 * none, as the CRD table convertor does; built-ins with computed cells use builtin-printers.ts); date cells are human durations against the emulator clock;
 * `row.object` is PartialObjectMetadata (includeObject=Metadata, the default) because `-A`, `--show-labels`
 * and `-L` read it. Watch events on a Table watch carry a one-row Table each.
 */
import type { KindInfo, KubeObject, PrinterColumn } from './types';
import { parseAccept } from './discovery';
import { evaluateJsonPath } from './jsonpath';
import { builtinColumns } from './builtin-printers';
import { KINDS_WITHOUT_NAME_COLUMN } from './pod-event-printers';

/** Which Table version a client asked for, if any. */
export type TableVersion = 'v1' | 'v1beta1';

/** `includeObject` query parameter values. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** The first acceptable Table version in an Accept header (kubectl lists v1, v1beta1, then plain JSON). */
export function negotiateTable(accept: string | undefined): TableVersion | undefined {
  for (const range of parseAccept(accept)) {
    if (range.type === 'application/json' && range.params.as === 'Table' && range.params.g === 'meta.k8s.io') {
      if (range.params.v === 'v1' || range.params.v === 'v1beta1') return range.params.v;
      continue;
    }
    // A client that prefers plain JSON over Table gets JSON.
    if (range.type === 'application/json' || range.type === '*/*') return undefined;
  }
  return undefined;
}

/** Response Content-Type of a Table. */
export function tableContentType(version: TableVersion): string {
  return `application/json;as=Table;v=${version};g=meta.k8s.io`;
}

/** Go's duration.HumanDuration (k8s.io/apimachinery/pkg/util/duration), which kubectl's AGE column shows. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    const years = Math.floor(hours / 24 / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.',
  priority: 0,
};
const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

/** A column with the values its cell is made of (a JSONPath may yield several). */
interface Column extends Omit<PrinterColumn, 'jsonPath'> {
  values(object: KubeObject): unknown[];
}

function jsonPathColumn(c: PrinterColumn): Column {
  return {
    name: c.name,
    type: c.type,
    description: c.description,
    priority: c.priority,
    values: (object) => {
      try {
        return evaluateJsonPath(object, c.jsonPath);
      } catch {
        return [];
      }
    },
  };
}

function columnsOf(kind: KindInfo): Column[] {
  const computed = builtinColumns(kind);
  if (computed) return computed.map((c) => ({ ...c, values: (o: KubeObject) => [c.value(o)] }));
  return (kind.printerColumns && kind.printerColumns.length > 0 ? kind.printerColumns : [AGE_COLUMN]).map(jsonPathColumn);
}

function cell(object: KubeObject, column: Column, now: Date): unknown {
  const results = column.values(object);
  if (results.length === 0 || results[0] === undefined || results[0] === null) return null;
  if (column.type === 'date') {
    const t = typeof results[0] === 'string' ? Date.parse(results[0]) : NaN;
    return Number.isNaN(t) ? String(results[0]) : humanDuration(now.getTime() - t);
  }
  const format = (v: unknown): string => (typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (results.length > 1) return results.map(format).join(',');
  const value = results[0];
  if (column.type === 'integer' || column.type === 'number') return typeof value === 'number' ? value : format(value);
  if (column.type === 'boolean') return typeof value === 'boolean' ? value : format(value);
  return format(value);
}

/** Build the row object for `includeObject`. */
function rowObject(object: KubeObject, include: IncludeObject): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return object;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

/** Options for building a Table. */
export interface TableOptions {
  version: TableVersion;
  now: Date;
  includeObject?: IncludeObject;
  /** List metadata (resourceVersion, continue, remainingItemCount). */
  listMeta?: Record<string, unknown>;
}

/** A meta.k8s.io Table for `objects` of `kind`. */
export function buildTable(kind: KindInfo, objects: KubeObject[], options: TableOptions): Record<string, unknown> {
  const columns = columnsOf(kind);
  const named = !(builtinColumns(kind) && KINDS_WITHOUT_NAME_COLUMN.has(kind.kind));
  const columnDefinitions = [
    ...(named ? [NAME_COLUMN] : []),
    ...columns.map((c) => ({ name: c.name, type: c.type, format: '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
  const include = options.includeObject ?? 'Metadata';
  const rows = objects.map((object) => {
    const cells = columns.map((c) => cell(object, c, options.now));
    const row: Record<string, unknown> = { cells: named ? [object.metadata.name ?? '', ...cells] : cells };
    const obj = rowObject(object, include);
    if (obj !== undefined) row.object = obj;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: options.listMeta ?? {},
    columnDefinitions,
    rows,
  };
}

/** Parse `includeObject` (default Metadata); unknown values fall back to Metadata. */
export function parseIncludeObject(value: string | null): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
