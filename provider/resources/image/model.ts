/**
 * The HarvesterImage inputs and outputs: the one source of truth (types, check, schema.json, README). A Harvester
 * VM image (`harvesterhci.io/v1beta1` VirtualMachineImage, sourceType download) that Harvester downloads from a URL
 * into a Longhorn backing image; a machine pool's disk takes its id (`namespace/name`). Which inputs Harvester lets
 * change in place follows its image webhook (docs/design/harvester-images.md §"Admission rules", V29–V35):
 * displayName, url and the storage class never change, so a change of them replaces the image.
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { timeoutsInput } from '../../core/timeouts';
import { inputsFlagged } from '../../core/input-flags';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A Kubernetes label value (Harvester stores displayName as one: label harvesterhci.io/imageDisplayName). */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_VALUE_HINT = 'must be a Kubernetes label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit, e.g. "ubuntu-22.04"';

/** The values Harvester's UI gives label `harvesterhci.io/image-type` (a machine pool refuses "iso" images). */
export const IMAGE_TYPES = ['raw_qcow2', 'iso'] as const;

export const imageSchema = z.strictObject({
  ...connectionInputs,
  name: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "ubuntu-jammy"' }).meta({ replaceOnChanges: true }).describe(
    'VirtualMachineImage name. Default: the Pulumi resource name. A change replaces the image.',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default').meta({ replaceOnChanges: true }).describe(
    'Namespace of the image (a machine pool in another namespace names it "namespace/name"). Default "default". A change replaces the image.',
  ),
  displayName: z.string().min(1, { error: 'must not be empty (Harvester requires a display name)' }).max(63, { error: LABEL_VALUE_HINT }).regex(LABEL_VALUE, { error: LABEL_VALUE_HINT })
    .optional().meta({ replaceOnChanges: true }).describe(
      'Name shown in the Harvester UI, unique among the images of the namespace. Default: `name`. Harvester refuses changing it, so a change replaces the image.',
    ),
  description: z.string().max(1024).optional().describe('Free text shown in the Harvester UI. Default none. A change updates in place.'),
  url: z.string().min(1).describe(
    'http(s) URL Harvester downloads the image from (a qcow2 or raw cloud image, or an ISO). Required. Harvester refuses changing it, so a change replaces the image.',
  ).meta({ replaceOnChanges: true }),
  checksum: z.string().regex(/^[0-9a-fA-F]{128}$/, { error: 'must be the SHA-512 of the file: 128 hexadecimal digits (e.g. from `sha512sum`)' }).optional()
    .meta({ replaceOnChanges: true }).describe(
      'SHA-512 of the downloaded file; Longhorn fails the download when it differs. Default: not verified. Only a new download uses it, so a change replaces the image.',
    ),
  imageType: z.enum(IMAGE_TYPES).default('raw_qcow2').describe(
    'Label harvesterhci.io/image-type as Harvester\'s UI sets it: "raw_qcow2" (a cloud image a VM boots from) or "iso" (an installer; machine pools refuse it). Default "raw_qcow2". A change updates in place.',
  ),
  osType: z.string().max(63).regex(LABEL_VALUE, { error: LABEL_VALUE_HINT }).optional().describe(
    'Label harvesterhci.io/os-type (e.g. "ubuntu"), shown by Harvester\'s UI. Default none. A change updates in place.',
  ),
  labels: z.record(z.string(), z.string()).default({}).describe(
    'Further labels of the image. Keys of harvesterhci.io/ and harvester-iac.io/ are Harvester\'s and ours, not allowed here. Default none. A change updates in place.',
  ),
  storageClass: z.string().max(253).regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { error: 'must be a StorageClass name' }).optional().meta({ replaceOnChanges: true }).describe(
    'StorageClass whose Longhorn parameters (numberOfReplicas, diskSelector, nodeSelector, dataLocality, …) the image\'s backing storage copies ' +
      '(annotation harvesterhci.io/storageClassName): create a StorageClass with provisioner driver.longhorn.io and the parameters you want, and name it here. ' +
      'Default: the cluster\'s default StorageClass. Harvester refuses changing it, so a change replaces the image.',
  ),
  retry: z.number().int().min(0).max(10).default(3).describe(
    'How many times Harvester retries a failed download (10 s apart) before giving up. Default 3. A change updates in place.',
  ),
  timeouts: timeoutsInput(
    {
      create: ['30m', 'Until the image is downloaded and imported.'],
      update: ['30m', 'Until it is imported again (an update resumes an unfinished download).'],
      delete: ['5m', 'Until the image and its storage are gone.'],
    },
    'Bounds of every wait. Default 30m, 30m and 5m.',
  ),
});

export type ImageInputs = z.output<typeof imageSchema>;
export type ImageArgs = z.input<typeof imageSchema>;

const conditionSchema = z.strictObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

export const imageOutputsSchema = imageSchema.extend({
  baseStorageClass: z.string().describe('The StorageClass whose parameters the image\'s storage copied: storageClass, or the default Harvester chose.'),
  storageClassName: z.string().describe('The StorageClass Harvester made for the image (status.storageClassName): volumes cloned from it use this class.'),
  size: z.number().describe('Size of the downloaded file in bytes (0 until known).'),
  virtualSize: z.number().describe('Virtual size of the disk image in bytes (0 until imported): a disk made from it must be at least this large.'),
  progress: z.number().int().describe('Download progress in percent (100 once imported).'),
  conditions: z.array(conditionSchema).describe('The image\'s conditions (Initialized, Imported, RetryLimitExceeded, …) as Harvester reports them.'),
  drift: z.array(z.string()).describe('Differences found by the last read between the live image and the recorded inputs.'),
});
export type ImageOutputs = z.output<typeof imageOutputsSchema>;

export const SECRET_INPUTS = inputsFlagged(imageSchema, 'secret');
export const REPLACE_INPUTS = inputsFlagged(imageSchema, 'replaceOnChanges');
export const OUTPUT_ONLY: readonly string[] = Object.keys(imageOutputsSchema.shape).filter((k) => !(k in imageSchema.shape));
