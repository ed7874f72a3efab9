/**
 * The resource pages (docs/resources/*.md): their tables come from the zod models, every resource of sdk/registry.ts
 * has a hand-written source of the fixed shape, and a committed page is the current rendering (staleness itself is
 * checked with the other generated files in test/unit/sdk/codegen.test.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderInputsTable, repoRoot } from '../../scripts/resource-docs';
import { kebabName, pagePath, parseSource, renderResourcePage, renderResourcePages, sourcePath } from '../../scripts/resource-pages';
import { RESOURCES } from '../../sdk/registry';
import { machinePoolSchema } from '../../provider/resources/machine-pool/model';
import { topologyLabelsSchema } from '../../provider/resources/topology-labels/model';

const root = repoRoot(__dirname);

describe('resource pages: inputs tables', () => {
  it('lists nested inputs with their flags and descriptions', () => {
    const table = renderInputsTable(machinePoolSchema);
    assert.match(table, /^\| `name` \| string \| required, replaces \| Pool name;/m);
    assert.match(table, /^\| `userData` \| string \| secret \| cloud-init user data/m);
    assert.match(table, /^\| `disks\[\]\.bus` \| "virtio" \\\| "scsi" \\\| "sata" \|/m);
    assert.match(table, /^\| `timeouts\.create` \| string \|/m);
  });

  it('names a schema shared by reference after its definition', () => {
    assert.match(renderInputsTable(machinePoolSchema), /^\| `affinity\.nodeAffinity` \| KubernetesNodeAffinity \|/m);
  });

  it('documents the values of a map input as `path.*.field`', () => {
    const table = renderInputsTable(topologyLabelsSchema);
    assert.match(table, /^\| `hosts` \| map of object \| required \|/m);
    assert.match(table, /^\| `hosts\.\*\.zone` \| string \|  \| Value of host label topology\.kubernetes\.io\/zone/m);
    assert.match(table, /^\| `guestKubeconfig` \| string \| secret \|/m);
  });
});

describe('resource pages: sources', () => {
  it('names files after the class in kebab case', () => {
    assert.equal(kebabName('HarvesterMachinePool'), 'harvester-machine-pool');
    assert.equal(kebabName('HarvesterIPPool'), 'harvester-ip-pool');
    assert.equal(kebabName('TopologyLabels'), 'topology-labels');
    assert.equal(kebabName('GuestClusterCredentials'), 'guest-cluster-credentials');
  });

  for (const r of RESOURCES) {
    it(`${r.className} has a source of the fixed shape (${sourcePath(r)}) and a generated page (${pagePath(r)})`, () => {
      assert.ok(existsSync(join(root, sourcePath(r))), `${sourcePath(r)} is missing: write it (see docs/architecture.md "Adding a resource")`);
      parseSource(readFileSync(join(root, sourcePath(r)), 'utf8'), r.className, sourcePath(r));
      assert.ok(existsSync(join(root, pagePath(r))), `${pagePath(r)} is missing: run \`npm run docs\``);
    });
  }

  const pool = RESOURCES.find((r) => r.className === 'HarvesterMachinePool')!;
  const good = readFileSync(join(root, sourcePath(pool)), 'utf8');

  it('refuses a source lacking a required section, naming the file and the section', () => {
    const withoutDrift = good.replace(/^## Drift$/m, '### Drift');
    assert.throws(() => parseSource(withoutDrift, pool.className, 'x.md'), /x\.md does not have the shape[\s\S]*"## Drift" is missing/);
  });

  it('refuses a wrong title, an unknown section and an example without exactly one ts program', () => {
    const bad = good.replace(/^# HarvesterMachinePool$/m, '# MachinePool').replace(/^## Notes$/m, '## Usage').replace(/```ts\n(?=import \* as pulumi)/, '```js\n');
    const err = (() => {
      try {
        parseSource(bad, pool.className, 'x.md');
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    assert.match(err, /first line must be "# HarvesterMachinePool"/);
    assert.match(err, /unknown section "## Usage"/);
    assert.match(err, /exactly one complete ```ts program \(found 0\)/);
  });

  it('puts the generated sections after the example, in a fixed order, and keeps the hand-written ones', () => {
    const page = renderResourcePage(pool, good);
    const order = ['# HarvesterMachinePool', '## Example', '## Inputs', '## Outputs', '## Replacement', '## Timeouts', '## Import', '## Drift', '## Errors', '## Notes'];
    const at = order.map((h) => page.search(new RegExp(`^${h}$`, 'm')));
    assert.ok(at.every((i) => i >= 0), `a section is missing: ${order.filter((_, i) => at[i] < 0).join(', ')}`);
    assert.deepEqual([...at].sort((a, b) => a - b), at, 'sections out of order');
    assert.match(page, /^- `name`: Pool name;/m, 'Replacement lists the replacing inputs');
    assert.match(page, /^\| `machines\[\]\.ip` \| string \|/m, 'Outputs lists the output-only properties');
    assert.doesNotMatch(page.split('## Outputs')[1].split('## Replacement')[0], /^\| `count` \|/m, 'Outputs leaves out the inputs');
    assert.match(page, /^\| `timeouts\.delete` \| string \|/m);
  });

  it('says so when a resource has no timeouts input, and lists *Timeout inputs', () => {
    const labels = RESOURCES.find((r) => r.className === 'TopologyLabels')!;
    const page = renderResourcePages(root)[pagePath(labels)];
    assert.match(page.split('## Timeouts')[1], /^\| `guestSyncTimeout` \| string \|/m);
  });
});

describe('README status table', () => {
  it('has a row linking the page of every resource of sdk/registry.ts', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const missing = RESOURCES.filter((r) => !new RegExp(`^\\| \`${r.className}\` \\| \\[[^\\]]*\\]\\(${pagePath(r).replace(/[.]/g, '\\.')}\\)`, 'm').test(readme));
    assert.deepEqual(missing.map((r) => r.className), [], 'add a row "| `<Class>` | [<page>](docs/resources/<page>.md) | <state> |" to the README\'s Status table');
  });
});
