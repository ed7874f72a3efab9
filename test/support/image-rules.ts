/**
 * The admission rules of Harvester's image webhooks a HarvesterImage's inputs can break
 * (docs/design/harvester-images.md §"Admission rules", with upstream's own test tables, §"Upstream's tests":
 * TestCheckDisplayName, TestVirtualMachineImageValidator_Create), as one table run on both sides with the same
 * outcome: by the emulator's webhooks on the object the provider writes
 * (test/emulator/harvester-image-rules.test.ts, the exact denial) and by the provider's check
 * (test/integration/image-rules.test.ts, refused on the field, no write). Rules no input reaches (the source type
 * is always download; targetStorageClassName is never written; clone and export rules) are left out; the update
 * rules become replacements in the provider (its diff), the delete rule a refusal of its delete — both tested
 * beside these.
 */

/** One rule. */
export interface ImageRuleCase {
  label: string;
  /** Upstream's test (or rule id) the case comes from. */
  upstream: string;
  /** What exists first: images (namespace default, raw) and StorageClasses. */
  existing?: { images?: { name: string; displayName: string }[] };
  /** The new image's HarvesterImage inputs (name "img"); what the model would refuse is written as is. */
  args: Record<string, unknown>;
  /**
   * Refused: the check failure's property and its reason (which never repeats the property), and the apiserver's
   * status code and message (exact).
   */
  refused?: { property: string; check: RegExp; code: number; message: string };
}

const URL = 'http://example.com/image.iso';
const WEBHOOK = 'admission webhook "validator.harvesterhci.io" denied the request: ';
const MUTATOR = 'admission webhook "mutator.harvesterhci.io" denied the request: ';
const LABEL_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
/** The mutator copies displayName into a label, so the apiserver's own label check refuses it before the validator's V1 runs. */
const labelRefusal = (value: string, why: string) => `VirtualMachineImage.harvesterhci.io "img" is invalid: metadata.labels: Invalid value: "${value}": ${why}`;

export const IMAGE_RULE_CASES: ImageRuleCase[] = [
  { label: 'a download with a valid URL', upstream: 'TestVirtualMachineImageValidator_Create "download image with valid URL - pass"', args: { displayName: 'test-image', url: URL } },
  { label: 'a display name of 63 characters', upstream: 'TestCheckDisplayName "accepts displayName with 63 chars"', args: { displayName: 'a'.repeat(63), url: URL } },
  {
    label: 'an empty display name',
    upstream: 'TestCheckDisplayName "rejects empty displayName" (V2)',
    args: { displayName: '', url: URL },
    refused: { property: 'displayName', check: /^must not be empty \(Harvester requires a display name\)/, code: 422, message: `${WEBHOOK}displayName is required` },
  },
  {
    label: 'a display name of 64 characters',
    upstream: 'TestCheckDisplayName "rejects displayName with more than 63 chars" (V1)',
    args: { displayName: 'a'.repeat(64), url: URL },
    refused: { property: 'displayName', check: /^must be a Kubernetes label value: at most 63 letters/, code: 422, message: labelRefusal('a'.repeat(64), 'must be no more than 63 characters') },
  },
  {
    label: 'a display name that is not a label value',
    upstream: 'TestCheckDisplayName "rejects displayName with invalid Kubernetes label value" (V1)',
    args: { displayName: 'Invalid/Name', url: URL },
    refused: { property: 'displayName', check: /^must be a Kubernetes label value: at most 63 letters/, code: 422, message: labelRefusal('Invalid/Name', LABEL_RULE) },
  },
  {
    label: 'a display name another image of the namespace has',
    upstream: 'TestCheckDisplayName "rejects duplicate displayName" (V3)',
    existing: { images: [{ name: 'existing-image', displayName: 'duplicate-name' }] },
    args: { displayName: 'duplicate-name', url: URL },
    refused: { property: 'displayName', check: /^\"duplicate-name\" is already the display name of VirtualMachineImage default\/existing-image .*set another displayName/, code: 409, message: `${WEBHOOK}A resource with the same name exists` },
  },
  { label: 'an empty URL', upstream: 'V5', args: { url: '' }, refused: { property: 'url', check: /^must not be empty/, code: 422, message: `${WEBHOOK}url is required` } },
  {
    label: 'a URL whose host holds a space',
    upstream: 'V6 (Go url.Parse)',
    args: { url: 'http://a b/x.img' },
    refused: { property: 'url', check: /^is not an absolute URL: write it as http\(s\):\/\/host\/path/, code: 422, message: `${WEBHOOK}url is invalid: parse "http://a b/x.img": invalid character " " in host name` },
  },
  {
    label: 'a URL with a broken %-escape',
    upstream: 'V6 (Go url.Parse)',
    args: { url: 'http://example.com/%zz.img' },
    refused: { property: 'url', check: /^holds \"%zz\", which is not a %-escape .*write \"%25\" for a literal \"%\"/, code: 422, message: `${WEBHOOK}url is invalid: parse "http://example.com/%zz.img": invalid URL escape "%zz"` },
  },
  {
    label: 'a URL with a port that is not a number',
    upstream: 'V6 (Go url.Parse)',
    args: { url: 'http://example.com:port/x.img' },
    refused: { property: 'url', check: /^is not an absolute URL: write it as http\(s\):\/\/host\/path/, code: 422, message: `${WEBHOOK}url is invalid: parse "http://example.com:port/x.img": invalid port ":port" after host` },
  },
  {
    label: 'a base StorageClass that does not exist',
    upstream: 'M3 (getSC: the cache\'s NotFound, a plain error)',
    args: { url: URL, storageClass: 'no-such-class' },
    refused: { property: 'storageClass', check: /^StorageClass no-such-class does not exist .*create it, or leave storageClass out to use the default/, code: 500, message: `${MUTATOR}storageclass.storage.k8s.io "no-such-class" not found` },
  },
  {
    label: 'another image\'s StorageClass as the base',
    upstream: 'M3 (getSC)',
    args: { url: URL, storageClass: 'longhorn-ubuntu-22.04-server-cloudimg' },
    refused: { property: 'storageClass', check: /^StorageClass longhorn-ubuntu-22\.04-server-cloudimg is the storage class of an image .*name a StorageClass of your own/, code: 500, message: `${MUTATOR}can not use a backing image storageClass as the base storageClass template` },
  },
  { label: 'the default StorageClass named as the base', upstream: 'M3, M4', args: { url: URL, storageClass: 'harvester-longhorn' } },
];
