/**
 * The parts of a `#cloud-config` user data an RKE2 node's bootstrap depends on: the files `write_files` puts on
 * disk (decoded as cloud-init decodes them, `append` honoured, later entries winning) and the `runcmd` commands, in
 * order (docs/design/guest-rke2.md §"The user-data contract").
 */
import { parse } from 'yaml';
import { decodeContent } from '../cloud-config-file';
import { Pipeline, runcmdPipelines } from './shell';

/** What a cloud-config user data does at first boot, as far as RKE2 is concerned. */
export interface CloudInitDoc {
  /** Absolute path → content, after decoding. */
  files: Map<string, string>;
  /** The `runcmd` entries as shell pipelines, in order. */
  commands: Pipeline[];
}

/** The outcome of reading a user data. */
export type CloudInitRead = { kind: 'cloud-config'; doc: CloudInitDoc } | { kind: 'not-cloud-config' } | { kind: 'invalid'; reason: string };

/** Reads a `#cloud-config` user data (a leading `## template: jinja` line, as the node driver and CAPRKE2 write, is skipped). */
export function readCloudInit(userData: string | undefined): CloudInitRead {
  if (!userData) return { kind: 'not-cloud-config' };
  let text = userData.replace(/^\uFEFF/, '');
  if (text.startsWith('## template: jinja')) text = text.slice(text.indexOf('\n') + 1);
  if (!/^#cloud-config[ \t]*(\r?\n|$)/.test(text)) return { kind: 'not-cloud-config' };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return { kind: 'invalid', reason: `the user data is not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
  if (doc === null || doc === undefined) return { kind: 'cloud-config', doc: { files: new Map(), commands: [] } };
  if (typeof doc !== 'object' || Array.isArray(doc)) return { kind: 'invalid', reason: 'the user data is not a YAML mapping' };
  const config = doc as Record<string, unknown>;
  const files = new Map<string, string>();
  const entries = Array.isArray(config.write_files) ? config.write_files : [];
  for (const entry of entries) {
    if (!entry || typeof entry !== 'object' || typeof (entry as Record<string, unknown>).path !== 'string') continue;
    const e = entry as Record<string, unknown>;
    let content: string;
    try {
      content = decodeContent(e);
    } catch (err) {
      return { kind: 'invalid', reason: `write_files ${String(e.path)}: ${(err as Error).message}` };
    }
    const path = String(e.path);
    const append = e.append === true || e.append === 'true';
    files.set(path, append ? (files.get(path) ?? '') + content : content);
  }
  return { kind: 'cloud-config', doc: { files, commands: runcmdPipelines(config.runcmd) } };
}
