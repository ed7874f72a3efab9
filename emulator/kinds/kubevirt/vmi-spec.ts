/**
 * VirtualMachineInstanceSpec (kubevirt.io/v1): the schema of a VMI's `spec` and of a VM's
 * `spec.template.spec` (identical in KubeVirt's CRDs). Networks and volumes are typed where Harvester uses
 * them (Multus networks, cloud-init NoCloud, PVC and DataVolume disks, container disks); other volume
 * sources are listed by name and kept opaque.
 */
import { JsonSchema } from '../../api/types';
import { affinity, toleration, topologySpreadConstraint } from '../core/pod-scheduling';
import { arr, bool, empty, int64, localRef, obj, opaque, quantity, str, stringMap } from '../schema/builders';
import { domain } from './vmi-domain';

/** `networks[]`: a Harvester VM network is `multus: {networkName: "<ns>/<nad>"}`. */
const network = obj(
  {
    name: str(),
    multus: obj({ networkName: str(), default: bool() }, ['networkName']),
    pod: obj({ vmNetworkCIDR: str(), vmIPv6NetworkCIDR: str() }),
  },
  ['name'],
);

/** NoCloud and ConfigDrive share one shape: inline user/network data or Secret references. */
const cloudInit = obj({
  userData: str(),
  userDataBase64: str(),
  secretRef: localRef(),
  networkData: str(),
  networkDataBase64: str(),
  networkDataSecretRef: localRef(),
});

const claim = obj({ claimName: str(), hotpluggable: bool(), readOnly: bool() }, ['claimName']);

const volume = obj(
  {
    name: str(),
    cloudInitNoCloud: cloudInit,
    cloudInitConfigDrive: cloudInit,
    persistentVolumeClaim: claim,
    dataVolume: obj({ name: str(), hotpluggable: bool() }, ['name']),
    containerDisk: obj(
      { image: str(), imagePullPolicy: str(), imagePullSecret: str(), path: str() },
      ['image'],
    ),
    emptyDisk: obj({ capacity: quantity() }, ['capacity']),
    ephemeral: obj({ persistentVolumeClaim: obj({ claimName: str(), readOnly: bool() }, ['claimName']) }),
    hostDisk: obj({ path: str(), type: str(), capacity: quantity(), shared: bool() }, ['path', 'type']),
    memoryDump: claim,
    configMap: obj({ name: str({ default: '' }), optional: bool(), volumeLabel: str() }),
    secret: obj({ secretName: str(), optional: bool(), volumeLabel: str() }),
    serviceAccount: obj({ serviceAccountName: str() }),
    downwardAPI: opaque(),
    downwardMetrics: empty(),
    sysprep: opaque(),
  },
  ['name'],
);

/** VirtualMachineInstanceSpec (required: domain). */
export const vmiSpec: JsonSchema = obj(
  {
    domain,
    networks: arr(network),
    volumes: arr(volume),
    affinity,
    nodeSelector: stringMap(),
    tolerations: arr(toleration),
    topologySpreadConstraints: arr(topologySpreadConstraint),
    evictionStrategy: str(),
    terminationGracePeriodSeconds: int64(),
    hostname: str(),
    subdomain: str(),
    architecture: str(),
    accessCredentials: arr(obj({ sshPublicKey: opaque(), userPassword: opaque() })),
    dnsConfig: obj({
      nameservers: arr(str()),
      searches: arr(str()),
      options: arr(obj({ name: str(), value: str() })),
    }),
    dnsPolicy: str(),
    livenessProbe: opaque(),
    readinessProbe: opaque(),
    priorityClassName: str(),
    resourceClaims: arr(obj({ name: str(), resourceClaimName: str(), resourceClaimTemplateName: str() }, ['name'])),
    schedulerName: str(),
    startStrategy: str(),
  },
  ['domain'],
);
