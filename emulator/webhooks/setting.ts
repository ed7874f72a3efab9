/**
 * Harvester's Setting validator for the two settings the capacity rules read (harvester
 * pkg/webhook/resources/setting/validator.go, on create and update; both `default` and `value` are checked):
 * - `overcommit-config`: the JSON must decode (`Invalid JSON: <text>`, field `default`/`value`), and each of
 *   cpu, memory and storage must be ≥ 100 (`Cannot undercommit. Should be greater than or equal to 100 but got
 *   <n>`, field `cpu`/`memory`/`storage`; a missing key decodes to 0 and is refused);
 * - `additional-guest-memory-overhead-ratio`: empty, 0, or a number from 1.0 to 10.0
 *   (pkg/settings/settings_helper.go NewAdditionalGuestMemoryOverheadRatioConfig).
 * Both are 422 Invalid with the field as the cause (werror.NewInvalidError).
 */
import { AdmissionHook, KubeObject } from '../api/types';
import { OVERCOMMIT_SETTING, OVERHEAD_RATIO_SETTING, parseOvercommit } from '../controllers/overcommit';
import { denyInvalid, HARVESTER_VALIDATOR } from './admission';

function checkOvercommit(field: 'default' | 'value', text: unknown): void {
  if (typeof text !== 'string' || text === '') return;
  let parsed;
  try {
    parsed = parseOvercommit(text);
  } catch {
    throw denyInvalid(HARVESTER_VALIDATOR, `Invalid JSON: ${text}`, field);
  }
  for (const key of ['cpu', 'memory', 'storage'] as const) {
    if (parsed[key] < 100) throw denyInvalid(HARVESTER_VALIDATOR, `Cannot undercommit. Should be greater than or equal to 100 but got ${parsed[key]}`, key);
  }
}

/** Go's strconv.ParseFloat accepts what Number() accepts here, except empty and surrounding blanks. */
function parseRatio(text: string): number | undefined {
  if (text.trim() !== text || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

function checkRatio(field: 'default' | 'value', text: unknown): void {
  if (typeof text !== 'string' || text === '') return;
  const ratio = parseRatio(text);
  if (ratio === undefined) {
    throw denyInvalid(HARVESTER_VALIDATOR, `value ${text} can't be converted to float64, error:strconv.ParseFloat: parsing "${text}": invalid syntax`, field);
  }
  if (ratio < 1 && ratio !== 0) throw denyInvalid(HARVESTER_VALIDATOR, `value ${text} can't be less than 1`, field);
  if (ratio > 10) throw denyInvalid(HARVESTER_VALIDATOR, `value ${text} can't be greater than 10`, field);
}

/** Why a setting's value would be refused (the denial's message, prefixed by the field), or undefined. */
export function settingProblem(name: string, value: string): string | undefined {
  try {
    validate({ apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name }, value });
    return undefined;
  } catch (err) {
    const status = (err as { status?: { message?: string; details?: { causes?: { field?: string }[] } } }).status;
    const field = status?.details?.causes?.[0]?.field;
    const message = String(status?.message ?? err).replace(/^admission webhook "[^"]+" denied the request: /, '');
    return field ? `${field}: ${message}` : message;
  }
}

function validate(setting: KubeObject | undefined): void {
  if (!setting) return;
  const check = setting.metadata.name === OVERCOMMIT_SETTING ? checkOvercommit : setting.metadata.name === OVERHEAD_RATIO_SETTING ? checkRatio : undefined;
  if (!check) return;
  check('default', setting.default);
  check('value', setting.value);
}

/** The Setting validating webhook (the rules above). */
export function settingWebhooks(): AdmissionHook[] {
  return [
    {
      name: HARVESTER_VALIDATOR,
      resources: ['settings.harvesterhci.io'],
      validate: (req) => {
        if (req.operation === 'DELETE' || req.subresource) return;
        validate(req.object);
      },
    },
  ];
}
