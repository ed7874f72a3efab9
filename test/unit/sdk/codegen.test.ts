/**
 * The generated files (sdk/generated/resources.ts, schema.json, docs/resources/*.md) are the current rendering of
 * the zod models, and schema.json is a valid Pulumi package schema (pulumi's own metaschema, from ../shared).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { generatedFiles, packageVersion } from '../../../scripts/codegen';
import { pulumiSchema } from '../../../scripts/codegen/pulumi-schema';
import { repoRoot } from '../../../scripts/resource-docs';

const root = repoRoot(__dirname);
const metaschemaPath = join(root, '..', 'shared', 'pulumi', 'package-metaschema.json');

/** The generated files, or the reason they cannot be rendered (a missing page source): a failing test, not a load error. */
function renderedOrFailure(): Record<string, string> | Error {
  try {
    return generatedFiles(root);
  } catch (err) {
    return err as Error;
  }
}

describe('generated SDK, schema.json and docs', () => {
  const rendered = renderedOrFailure();
  if (rendered instanceof Error) {
    it('the generated files can be rendered', () => {
      throw rendered;
    });
  }
  for (const [path, expected] of Object.entries(rendered instanceof Error ? {} : rendered)) {
    it(`${path} is current (run \`npm run docs\` after changing a model or sdk/registry.ts)`, () => {
      assert.equal(readFileSync(join(root, path), 'utf8'), expected, `${path} is stale: run \`npm run docs\` and commit the result`);
    });
  }

  it('schema.json declares every resource with its secrets, replace-on-changes and required inputs', () => {
    const schema = pulumiSchema(packageVersion(root));
    const pool = schema.resources['harvester:index:HarvesterMachinePool'];
    assert.equal(pool.inputProperties.userData.secret, true);
    assert.equal(pool.inputProperties.kubeconfig.secret, true);
    assert.equal(pool.inputProperties.name.replaceOnChanges, true);
    assert.deepEqual(pool.requiredInputs, ['disks', 'networks'], 'name defaults to the Pulumi resource name');
    assert.equal(pool.properties.cloudInitHash.secret, true);
    assert.deepEqual(pool.inputProperties.disks.items, { $ref: '#/types/harvester:index:HarvesterMachinePoolDisk' });
    assert.ok(schema.types['harvester:index:HarvesterMachinePoolDiskBus'].enum.some((e: { value: string }) => e.value === 'virtio'));
    const labels = schema.resources['harvester:index:TopologyLabels'];
    assert.deepEqual(labels.requiredInputs, ['hosts'], 'name defaults to the Pulumi resource name');
    assert.equal(schema.config.variables.kubeconfig.secret, true);
  });

  // ../shared sits beside CI's clone only; without it there is nothing to validate against, and the title says so.
  const haveMetaschema = existsSync(metaschemaPath);
  (haveMetaschema ? it : it.skip)(
    haveMetaschema ? 'schema.json is valid against Pulumi\'s package metaschema' : 'schema.json against Pulumi\'s package metaschema: skipped, ../shared/pulumi/package-metaschema.json is not beside this repository',
    () => {
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
      const validate = ajv.compile(JSON.parse(readFileSync(metaschemaPath, 'utf8')));
      const ok = validate(JSON.parse(readFileSync(join(root, 'schema.json'), 'utf8')));
      assert.ok(ok, `schema.json does not match the metaschema:\n${ajv.errorsText(validate.errors, { separator: '\n' })}`);
    },
  );
});
