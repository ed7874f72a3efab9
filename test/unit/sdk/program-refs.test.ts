/**
 * The SDK's marking of references to resources of the same program (sdk/runtime.ts → `__inProgram`): every input
 * path the model marks `.meta({ references })` (top-level or nested in lists and objects) whose value is an Output
 * of a resource of the referenced class, and nothing else.
 */
import assert from 'node:assert/strict';
import * as pulumi from '@pulumi/pulumi';
import { PROGRAM_REFS_KEY } from '../../../provider/core/program-refs';
import { RESOURCES } from '../../../sdk/registry';
import { inputsFromProgram, resourceProps } from '../../../sdk/runtime';

/** An Output that comes from a resource of class `className`, as the SDK's dependency tracking records it. */
function outputOf(className: string, value: string): pulumi.Output<string> {
  const resource = { __pulumiType: `pulumi-nodejs:dynamic/harvester:${className}` };
  const OutputOf = pulumi.Output as unknown as new (...args: unknown[]) => pulumi.Output<string>;
  return new OutputOf(new Set([resource]), Promise.resolve(value), Promise.resolve(true), Promise.resolve(false), Promise.resolve(new Set([resource])));
}

const entry = (className: string) => RESOURCES.find((r) => r.className === className)!;

describe('sdk: references to resources of the same program', () => {
  const key = outputOf('HarvesterKeyPair', 'default/k');
  const image = outputOf('HarvesterImage', 'default/img');
  const net = outputOf('HarvesterNetwork', 'default/net');

  it('marks each list element and nested field whose Output comes from the referenced class, by its path', () => {
    const props = {
      disks: [{ image: 'default/on-cluster', size: '10Gi' }, { image, size: '10Gi' }],
      networks: [{ network: net }, { network: 'default/vm-net' }],
      sshKeys: ['default/ops-key', key, key],
    };
    assert.deepEqual(inputsFromProgram(entry('HarvesterMachinePool'), props), ['disks[1].image', 'networks[0].network', 'sshKeys[1]', 'sshKeys[2]']);
  });

  it('names a whole list or element given as one Output, and nothing for the wrong class or plain values', () => {
    assert.deepEqual(inputsFromProgram(entry('HarvesterMachinePool'), { sshKeys: key, disks: [{ image: key }], networks: [image] }), ['sshKeys']);
    assert.deepEqual(inputsFromProgram(entry('HarvesterMachinePool'), { disks: [image], sshKeys: [outputOf('HarvesterIPPool', 'x')] }), ['disks[0]']);
    assert.deepEqual(inputsFromProgram(entry('HarvesterMachinePool'), { disks: [{ image: 'a' }], sshKeys: ['k'] }), []);
  });

  it('keeps the top-level behaviour (the load balancer\'s ipPool), and sets the hidden input only when something is marked', () => {
    const lb = resourceProps('HarvesterLoadBalancer', 'lb', { ipPool: outputOf('HarvesterIPPool', 'pool'), listeners: [] });
    assert.deepEqual(lb[PROGRAM_REFS_KEY], ['ipPool']);
    const pool = resourceProps('HarvesterMachinePool', 'p', { sshKeys: ['k'] });
    assert.equal(PROGRAM_REFS_KEY in pool, false);
    assert.deepEqual(resourceProps('HarvesterMachinePool', 'p', { sshKeys: [key] })[PROGRAM_REFS_KEY], ['sshKeys[0]']);
  });

  it('names an unset ipPool once the program has declared an IP pool, also one declared after the load balancer', async () => {
    const lb = resourceProps('HarvesterLoadBalancer', 'unset', { listeners: [] });
    assert.ok(lb[PROGRAM_REFS_KEY] instanceof Promise, 'decided once the program has declared its resources');
    resourceProps('HarvesterIPPool', 'later', { ranges: [{ subnet: '10.0.0.0/24' }] });
    assert.deepEqual(await lb[PROGRAM_REFS_KEY], ['ipPool']);
    const set = resourceProps('HarvesterLoadBalancer', 'set', { ipPool: 'on-the-cluster', listeners: [] });
    assert.equal(PROGRAM_REFS_KEY in set, false, 'an ipPool given as a plain name is not marked');
  });
});
