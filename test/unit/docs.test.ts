import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderInputsTable, renderReadme, repoRoot } from '../../scripts/resource-docs';
import { machinePoolSchema } from '../../provider/resources/machine-pool/model';
import { topologyLabelsSchema } from '../../provider/resources/topology-labels/model';

describe('README resource reference', () => {
  it('is the current rendering of the zod models (run `npm run docs` after changing a model)', () => {
    const readme = readFileSync(join(repoRoot(__dirname), 'README.md'), 'utf8');
    assert.equal(readme, renderReadme(readme), 'README.md is stale: run `npm run docs` and commit the result');
  });

  it('lists nested inputs with their flags and descriptions', () => {
    const table = renderInputsTable(machinePoolSchema);
    assert.match(table, /^\| `name` \| string \| required, replaces \| Pool name;/m);
    assert.match(table, /^\| `userData` \| string \| secret \| cloud-init user data/m);
    assert.match(table, /^\| `disks\[\]\.bus` \| "virtio" \\\| "scsi" \\\| "sata" \|/m);
    assert.match(table, /^\| `timeouts\.create` \| string \|/m);
  });
});

describe('README resource reference: shared schemas', () => {
  it('names a schema shared by reference after its definition', () => {
    assert.match(renderInputsTable(machinePoolSchema), /^\| `affinity\.nodeAffinity` \| KubernetesNodeAffinity \|/m);
  });
});

describe('README resource reference: maps of objects', () => {
  it('documents the values of a map input as `path.*.field`', () => {
    const table = renderInputsTable(topologyLabelsSchema);
    assert.match(table, /^\| `hosts` \| map of object \| required \|/m);
    assert.match(table, /^\| `hosts\.\*\.zone` \| string \|  \| Value of host label topology\.kubernetes\.io\/zone/m);
    assert.match(table, /^\| `guestKubeconfig` \| string \| secret \|/m);
  });
});
