/**
 * emulator/webhooks/setting.ts: Harvester's Setting validator (harvester pkg/webhook/resources/setting/validator.go)
 * for overcommit-config and additional-guest-memory-overhead-ratio, the latter read with Go's strconv.ParseFloat
 * (pkg/settings/settings_helper.go NewAdditionalGuestMemoryOverheadRatioConfig). Called directly: the webhook
 * (exact Status, field) and settingProblem (what the CLI and the seed print).
 */
import { strict as assert } from 'node:assert';
import { AdmissionRequest, KubeObject } from '../../emulator/api/types';
import { StatusError } from '../../emulator/api/errors';
import { settingKind } from '../../emulator/kinds/harvester/setting';
import { settingProblem, settingWebhooks } from '../../emulator/webhooks/setting';

const RATIO = 'additional-guest-memory-overhead-ratio';
const PREFIX = 'admission webhook "validator.harvesterhci.io" denied the request: ';

function request(operation: AdmissionRequest['operation'], object: KubeObject | undefined, oldObject?: KubeObject): AdmissionRequest {
  return { operation, kind: settingKind, object, oldObject, dryRun: false, store: undefined as never };
}

function setting(name: string, fields: { default?: unknown; value?: unknown }): KubeObject {
  return { apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name }, ...fields };
}

/** The webhook's answer: undefined when allowed, else [code, message, cause field]. */
function answer(req: AdmissionRequest): [number, string, string | undefined] | undefined {
  try {
    settingWebhooks()[0].validate!(req);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    const causes = (err.status.details as { causes: { field?: string; message: string; reason: string }[] }).causes;
    assert.deepEqual(causes, [{ reason: 'FieldValueInvalid', message: err.status.message!.slice(PREFIX.length), field: causes[0].field }]);
    return [err.code, err.status.message!, causes[0].field];
  }
}

const parseFailure = (text: string, quoted: string, reason: string) => `value: value ${text} can't be converted to float64, error:strconv.ParseFloat: parsing ${quoted}: ${reason}`;

describe('Harvester Setting validator (emulator/webhooks/setting.ts)', () => {
  describe('additional-guest-memory-overhead-ratio, as strconv.ParseFloat reads it', () => {
    const cases: [string, string | undefined][] = [
      ['', undefined],
      ['0', undefined],
      ['1', undefined],
      ['10', undefined],
      ['+2', undefined],
      ['1.', undefined],
      ['1.25', undefined],
      ['.5e1', undefined],
      ['1e1', undefined],
      ['1E+1', undefined],
      ['25e-1', undefined],
      ['1e-400', undefined],
      ['NaN', undefined],
      ['nan', undefined],
      ['0.999', "value: value 0.999 can't be less than 1"],
      ['.5', "value: value .5 can't be less than 1"],
      ['.25', "value: value .25 can't be less than 1"],
      ['.25e1', undefined],
      ['-2', "value: value -2 can't be less than 1"],
      ['1e-1', "value: value 1e-1 can't be less than 1"],
      ['-Inf', "value: value -Inf can't be less than 1"],
      ['10.5', "value: value 10.5 can't be greater than 10"],
      ['12', "value: value 12 can't be greater than 10"],
      ['1e12', "value: value 1e12 can't be greater than 10"],
      ['+Infinity', "value: value +Infinity can't be greater than 10"],
      ['inf', "value: value inf can't be greater than 10"],
      ['1e400', parseFailure('1e400', '"1e400"', 'value out of range')],
      ['x', parseFailure('x', '"x"', 'invalid syntax')],
      [' 2', parseFailure(' 2', '" 2"', 'invalid syntax')],
      ['2 ', parseFailure('2 ', '"2 "', 'invalid syntax')],
      ['x2', parseFailure('x2', '"x2"', 'invalid syntax')],
      ['2x', parseFailure('2x', '"2x"', 'invalid syntax')],
      ['.', parseFailure('.', '"."', 'invalid syntax')],
      ['.x', parseFailure('.x', '".x"', 'invalid syntax')],
      ['e1', parseFailure('e1', '"e1"', 'invalid syntax')],
      ['1e', parseFailure('1e', '"1e"', 'invalid syntax')],
      ['1x1', parseFailure('1x1', '"1x1"', 'invalid syntax')],
      ['1e+', parseFailure('1e+', '"1e+"', 'invalid syntax')],
      ['1ex', parseFailure('1ex', '"1ex"', 'invalid syntax')],
      ['++1', parseFailure('++1', '"++1"', 'invalid syntax')],
      ['+nan', parseFailure('+nan', '"+nan"', 'invalid syntax')],
      ['infin', parseFailure('infin', '"infin"', 'invalid syntax')],
      ['1"', parseFailure('1"', '"1\\""', 'invalid syntax')],
    ];
    for (const [text, want] of cases) it(`${JSON.stringify(text)} → ${want ?? 'allowed'}`, () => assert.equal(settingProblem(RATIO, text), want));
  });

  describe('overcommit-config', () => {
    it('an empty value is allowed (the default applies)', () => assert.equal(settingProblem('overcommit-config', ''), undefined));
    it('a value at 100 each is allowed', () => assert.equal(settingProblem('overcommit-config', '{"cpu":100,"memory":100,"storage":100}'), undefined));
    it('JSON that does not decode is refused on the field holding it', () => assert.equal(settingProblem('overcommit-config', '{"cpu":'), 'value: Invalid JSON: {"cpu":'));
    it('a percentage below 100 is refused on its key, cpu first', () => {
      assert.equal(settingProblem('overcommit-config', '{"cpu":99,"memory":50,"storage":100}'), 'cpu: Cannot undercommit. Should be greater than or equal to 100 but got 99');
    });
    it('a missing key decodes to 0 and is refused', () => {
      assert.equal(settingProblem('overcommit-config', '{"cpu":100,"memory":100}'), 'storage: Cannot undercommit. Should be greater than or equal to 100 but got 0');
    });
    it('another setting is not checked', () => assert.equal(settingProblem('server-version', '{"cpu":'), undefined));
  });

  describe('the webhook', () => {
    it('refuses on create with 422 Invalid, the field as the cause', () => {
      assert.deepEqual(answer(request('CREATE', setting(RATIO, { value: '11' }))), [422, `${PREFIX}value 11 can't be greater than 10`, 'value']);
    });
    it('checks `default` before `value`', () => {
      assert.deepEqual(answer(request('UPDATE', setting(RATIO, { default: 'x', value: '11' }))), [
        422,
        `${PREFIX}value x can't be converted to float64, error:strconv.ParseFloat: parsing "x": invalid syntax`,
        'default',
      ]);
      assert.deepEqual(answer(request('UPDATE', setting('overcommit-config', { default: '{"cpu":', value: '{"cpu":1}' }))), [422, `${PREFIX}Invalid JSON: {"cpu":`, 'default']);
    });
    it('allows a valid default with an empty or absent value', () => {
      assert.equal(answer(request('UPDATE', setting('overcommit-config', { default: '{"cpu":1000,"memory":150,"storage":100}', value: '' }))), undefined);
      assert.equal(answer(request('UPDATE', setting(RATIO, { default: '1.5' }))), undefined);
    });
    it('allows a non-string field through (the CRD schema refuses it first)', () => {
      assert.equal(answer(request('UPDATE', setting('overcommit-config', { value: 5 }))), undefined);
      assert.equal(answer(request('UPDATE', setting(RATIO, { value: 5 }))), undefined);
    });
    it('allows a DELETE (it carries no object)', () => {
      assert.equal(answer(request('DELETE', undefined, setting(RATIO, { value: '11' }))), undefined);
    });
  });
});
