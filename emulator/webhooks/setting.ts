/**
 * Harvester's Setting validator for the two settings the capacity rules read (harvester
 * pkg/webhook/resources/setting/validator.go, on create and update; both `default` and `value` are checked):
 * - `overcommit-config`: the JSON must decode (`Invalid JSON: <text>`, field `default`/`value`), and each of
 *   cpu, memory and storage must be ≥ 100 (`Cannot undercommit. Should be greater than or equal to 100 but got
 *   <n>`, field `cpu`/`memory`/`storage`; a missing key decodes to 0 and is refused);
 * - `additional-guest-memory-overhead-ratio`: empty, 0, or what Go's strconv.ParseFloat reads as 1.0 to 10.0
 *   (pkg/settings/settings_helper.go NewAdditionalGuestMemoryOverheadRatioConfig): so NaN (not < 1, not > 10) and
 *   ±Inf parse, an out-of-range exponent is `value out of range`. Go's hex-float form (`0x1p1`) is refused here as
 *   invalid syntax, where Go would read it.
 * Both are 422 Invalid with the field as the cause (werror.NewInvalidError). The webhook runs on create and
 * update; a Setting has no status subresource and a DELETE carries no object, so neither is checked.
 */
import { AdmissionHook, KubeObject } from '../api/types';
import { OVERCOMMIT_SETTING, OVERHEAD_RATIO_SETTING, parseOvercommit } from '../controllers/overcommit';
import { denyInvalid, HARVESTER_VALIDATOR } from './admission';
import { goQuoteText } from './go-url';

/** A refusal: the message and the field Harvester names as its cause. */
interface Problem {
  message: string;
  field: string;
}

function overcommitProblem(field: 'default' | 'value', text: unknown): Problem | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  let parsed;
  try {
    parsed = parseOvercommit(text);
  } catch {
    return { message: `Invalid JSON: ${text}`, field };
  }
  for (const key of ['cpu', 'memory', 'storage'] as const) {
    if (parsed[key] < 100) return { message: `Cannot undercommit. Should be greater than or equal to 100 but got ${parsed[key]}`, field: key };
  }
  return undefined;
}

/** Go's strconv.ParseFloat(text, 64) on decimal and special text: the number, or Go's reason it fails. */
function goParseFloat(text: string): number | 'invalid syntax' | 'value out of range' {
  const special = /^(?:([+-]?)inf(?:inity)?|nan)$/i.exec(text);
  if (special) return special[1] === undefined ? NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return 'invalid syntax';
  const value = Number(text);
  return Number.isFinite(value) ? value : 'value out of range';
}

function ratioProblem(field: 'default' | 'value', text: unknown): Problem | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const ratio = goParseFloat(text);
  if (typeof ratio === 'string') {
    return { message: `value ${text} can't be converted to float64, error:strconv.ParseFloat: parsing ${goQuoteText(text)}: ${ratio}`, field };
  }
  if (ratio < 1 && ratio !== 0) return { message: `value ${text} can't be less than 1`, field };
  if (ratio > 10) return { message: `value ${text} can't be greater than 10`, field };
  return undefined;
}

/** Why Harvester's validator refuses this Setting (its `default` checked before its `value`), or undefined. */
function problemOf(setting: KubeObject | undefined): Problem | undefined {
  if (!setting) return undefined;
  const check = setting.metadata.name === OVERCOMMIT_SETTING ? overcommitProblem : setting.metadata.name === OVERHEAD_RATIO_SETTING ? ratioProblem : undefined;
  return check && (check('default', setting.default) ?? check('value', setting.value));
}

/** Why a setting's value would be refused (the denial's message, prefixed by the field), or undefined. */
export function settingProblem(name: string, value: string): string | undefined {
  const problem = problemOf({ apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name }, value });
  return problem && `${problem.field}: ${problem.message}`;
}

/** The Setting validating webhook (the rules above). */
export function settingWebhooks(): AdmissionHook[] {
  return [
    {
      name: HARVESTER_VALIDATOR,
      resources: ['settings.harvesterhci.io'],
      validate: (req) => {
        const problem = problemOf(req.object);
        if (problem) throw denyInvalid(HARVESTER_VALIDATOR, problem.message, problem.field);
      },
    },
  ];
}
