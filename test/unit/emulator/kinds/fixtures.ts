/**
 * Our own example objects, one valid object per kind, written the way the Harvester node driver, the
 * cloud provider and Harvester's controllers shape them, plus a corpus of broken variants. Used by the
 * validation unit tests and by the CRD conformance test (which holds our schemas against the real CRDs).
 */
import { KubeObject } from '../../../../emulator/api/types';
import { KINDS } from '../../../../emulator/kinds';

/** A key of KINDS. */
export type KindKey = keyof typeof KINDS;

const vmiSpec = {
  evictionStrategy: 'LiveMigrateIfPossible',
  terminationGracePeriodSeconds: 120,
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a'] }] }],
      },
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchExpressions: [{ key: 'harvesterhci.io/creator', operator: 'Exists' }] },
            topologyKey: 'kubernetes.io/hostname',
          },
        },
      ],
    },
  },
  domain: {
    cpu: { cores: 4, sockets: 1, threads: 1 },
    memory: { guest: '7932Mi' },
    resources: { limits: { cpu: '4', memory: '8Gi' }, requests: { cpu: '250m', memory: '5461Mi' } },
    machine: { type: 'q35' },
    features: { smm: { enabled: true } },
    firmware: { bootloader: { efi: { secureBoot: true } } },
    devices: {
      disks: [
        { name: 'cloudinitdisk', disk: { bus: 'virtio' } },
        { name: 'disk-0', bootOrder: 1, disk: { bus: 'virtio' } },
      ],
      interfaces: [{ name: 'nic-0', model: 'virtio', macAddress: '52:54:00:12:34:56', bridge: {} }],
      tpm: {},
    },
  },
  networks: [{ name: 'nic-0', multus: { networkName: 'default/vlan20' } }],
  volumes: [
    { name: 'cloudinitdisk', cloudInitNoCloud: { secretRef: { name: 'prod-workers-7xk2p-q9d4m-cloudinit' } } },
    { name: 'disk-0', persistentVolumeClaim: { claimName: 'prod-workers-7xk2p-q9d4m-disk-0-h2k8s' } },
  ],
};

const labels = {
  'harvesterhci.io/creator': 'docker-machine-driver-harvester',
  'harvesterhci.io/vmName': 'prod-workers-7xk2p-q9d4m',
  'guestcluster.harvesterhci.io/name': 'prod',
};

/** One valid object per kind. Tests must copy before changing (use `valid(kind)`). */
const VALID: Record<KindKey, KubeObject> = {
  namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a' }, status: { phase: 'Active' } },
  node: {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'harvester-node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } },
    spec: { podCIDR: '10.52.0.0/24', taints: [{ key: 'node-role.kubernetes.io/witness', effect: 'NoExecute' }] },
    status: {
      capacity: { cpu: '32', memory: '131072Mi', pods: '200' },
      conditions: [
        { type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      ],
      addresses: [{ type: 'InternalIP', address: '10.0.0.11' }, { type: 'Hostname', address: 'harvester-node-1' }],
      nodeInfo: { kubeletVersion: 'v1.32.4+rke2r1', osImage: 'Harvester v1.8.0', architecture: 'amd64' },
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    },
  },
  service: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default', annotations: { 'cloudprovider.harvesterhci.io/ipam': 'pool' } },
    spec: {
      type: 'LoadBalancer',
      selector: { app: 'web' },
      ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP', nodePort: 31080 }],
      externalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: { ingress: [{ ip: '10.0.10.10', ipMode: 'VIP' }] } },
  },
  secret: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'prod-workers-7xk2p-q9d4m-cloudinit', namespace: 'default' },
    type: 'secret',
    data: { userdata: 'I2Nsb3VkLWNvbmZpZwo=' },
    stringData: { networkdata: '' },
  },
  configMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'harvester-nad-mapping', namespace: 'kube-system' }, data: { 'interface-nad-mapping': '{}' } },
  persistentVolumeClaim: {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'prod-workers-7xk2p-q9d4m-disk-0-h2k8s', namespace: 'default', annotations: { 'harvesterhci.io/imageId': 'default/ubuntu-noble' } },
    spec: { accessModes: ['ReadWriteMany'], volumeMode: 'Block', storageClassName: 'lh-0b9d', resources: { requests: { storage: '40Gi' } } },
    status: { phase: 'Bound', capacity: { storage: '40Gi' }, accessModes: ['ReadWriteMany'] },
  },
  pod: {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'virt-launcher-prod-workers-7xk2p-q9d4m-abcde', namespace: 'default', labels: { 'kubevirt.io': 'virt-launcher' } },
    spec: {
      containers: [{ name: 'compute', image: 'registry.suse.com/suse/sles/15.6/virt-launcher:1.5.0', resources: { requests: { cpu: '125m', memory: '3114391552' }, limits: { cpu: '2', memory: '4712069120' } } }],
      nodeSelector: { 'kubevirt.io/schedulable': 'true' },
      nodeName: 'harvester-node-1',
    },
    status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }], qosClass: 'Burstable' },
  },
  event: {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'virt-launcher-prod-workers-7xk2p-q9d4m-abcde.1881f2a3b4c5d6e7', namespace: 'default' },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'virt-launcher-prod-workers-7xk2p-q9d4m-abcde', namespace: 'default', uid: 'u' },
    reason: 'FailedScheduling',
    message: '0/3 nodes are available: 3 Insufficient cpu.',
    type: 'Warning',
    eventTime: '2026-01-01T00:00:00.123456Z',
    firstTimestamp: null,
    lastTimestamp: null,
    reportingComponent: 'default-scheduler',
    source: {},
  },
  resourceQuota: {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'default-quota', namespace: 'default' },
    spec: { hard: { 'limits.cpu': '40', 'limits.memory': '80Gi' } },
    status: { hard: { 'limits.cpu': '40', 'limits.memory': '80Gi' }, used: { 'limits.cpu': '0', 'limits.memory': '0' } },
  },
  virtualMachine: {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: { name: 'prod-workers-7xk2p-q9d4m', namespace: 'default', labels, annotations: { 'harvesterhci.io/volumeClaimTemplates': '[]' } },
    spec: {
      runStrategy: 'RerunOnFailure',
      template: { metadata: { labels, annotations: { 'harvesterhci.io/sshNames': '["default/ops"]' } }, spec: vmiSpec },
    },
    status: {
      printableStatus: 'Running',
      ready: true,
      created: true,
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:01:00Z' }],
    },
  },
  virtualMachineInstance: {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'prod-workers-7xk2p-q9d4m', namespace: 'default', labels },
    spec: vmiSpec,
    status: {
      phase: 'Running',
      nodeName: 'harvester-node-1',
      interfaces: [{ name: 'nic-0', interfaceName: 'enp1s0', ipAddress: '10.0.20.31', ipAddresses: ['10.0.20.31'], mac: '52:54:00:12:34:56', infoSource: 'domain, guest-agent' }],
      conditions: [{ type: 'AgentConnected', status: 'True', lastProbeTime: '2026-01-01T00:02:00Z', lastTransitionTime: null }],
      phaseTransitionTimestamps: [{ phase: 'Running', phaseTransitionTimestamp: '2026-01-01T00:01:30Z' }],
    },
  },
  virtualMachineInstanceMigration: {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstanceMigration',
    metadata: { name: 'prod-workers-7xk2p-q9d4m-migrate', namespace: 'default', labels: { 'kubevirt.io/vmi-name': 'prod-workers-7xk2p-q9d4m' } },
    spec: { vmiName: 'prod-workers-7xk2p-q9d4m' },
    status: {
      phase: 'Succeeded',
      phaseTransitionTimestamps: [{ phase: 'Succeeded', phaseTransitionTimestamp: '2026-01-01T00:03:00Z' }],
      migrationState: { sourceNode: 'harvester-node-1', targetNode: 'harvester-node-2', completed: true, endTimestamp: '2026-01-01T00:03:00Z' },
    },
  },
  virtualMachineImage: {
    apiVersion: 'harvesterhci.io/v1beta1',
    kind: 'VirtualMachineImage',
    metadata: { name: 'ubuntu-noble', namespace: 'default' },
    spec: { displayName: 'noble-server-cloudimg-amd64.img', sourceType: 'download', url: 'https://cloud-images.ubuntu.com/noble/current/noble-server-cloudimg-amd64.img', backend: 'backingimage', retry: 3 },
    status: { progress: 100, size: 614465536, storageClassName: 'lh-0b9d', failed: 0, conditions: [{ type: 'Imported', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z' }] },
  },
  keyPair: {
    apiVersion: 'harvesterhci.io/v1beta1',
    kind: 'KeyPair',
    metadata: { name: 'ops', namespace: 'default' },
    spec: { publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOps ops@example' },
    status: { fingerPrint: 'aa:bb:cc', conditions: [{ type: 'validated', status: 'True' }] },
  },
  setting: { apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name: 'server-version' }, value: 'v1.8.0', default: '' },
  loadBalancer: {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'LoadBalancer',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      workloadType: 'vm',
      ipam: 'pool',
      ipPool: 'prod-vip',
      listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }],
      backendServerSelector: { 'harvesterhci.io/vmName': ['web-1', 'web-2'] },
      healthCheck: { port: 8080, successThreshold: 2, failureThreshold: 2, periodSeconds: 1, timeoutSeconds: 1 },
    },
    status: {
      address: '10.0.10.10',
      allocatedAddress: { ipPool: 'prod-vip', ip: '10.0.10.10', mask: '255.255.255.0', gateway: '10.0.10.1' },
      backendServers: ['10.0.20.31'],
      conditions: [{ type: 'Ready', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z' }],
    },
  },
  ipPool: {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'IPPool',
    metadata: { name: 'prod-vip' },
    spec: {
      description: 'VIPs for prod',
      ranges: [{ subnet: '10.0.10.0/24', rangeStart: '10.0.10.10', rangeEnd: '10.0.10.19', gateway: '10.0.10.1' }],
      selector: { priority: 10, network: 'default/vlan20', scope: [{ project: '*', namespace: 'default', guestCluster: 'prod' }] },
    },
    status: { total: 10, available: 9, lastAllocated: '10.0.10.10', allocated: { '10.0.10.10': 'default/web' } },
  },
  clusterNetwork: {
    apiVersion: 'network.harvesterhci.io/v1beta1',
    kind: 'ClusterNetwork',
    metadata: { name: 'data' },
    status: { conditions: [{ type: 'ready', status: 'True', lastUpdateTime: '2026-01-01T00:00:00Z' }] },
  },
  vlanConfig: {
    apiVersion: 'network.harvesterhci.io/v1beta1',
    kind: 'VlanConfig',
    metadata: { name: 'data-all', labels: { 'network.harvesterhci.io/clusternetwork': 'data' } },
    spec: { clusterNetwork: 'data', nodeSelector: { 'kubernetes.io/hostname': 'node-1' }, uplink: { nics: ['eth1'], linkAttributes: { mtu: 1500, txQLen: -1 }, bondOptions: { mode: 'active-backup', miimon: -1 } } },
  },
  networkAttachmentDefinition: {
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: { name: 'vlan20', namespace: 'default', labels: { 'network.harvesterhci.io/vlan-id': '20' } },
    spec: { config: '{"cniVersion":"0.3.1","name":"vlan20","type":"bridge","bridge":"mgmt-br","vlan":20}' },
  },
  storageClass: {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'lh-0b9d' },
    provisioner: 'driver.longhorn.io',
    parameters: { numberOfReplicas: '3', backingImage: 'default-ubuntu-noble' },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  },
  serviceAccount: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'prod-cloud-provider', namespace: 'default' },
    automountServiceAccountToken: false,
    imagePullSecrets: [{ name: 'registry' }],
  },
  clusterRole: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'harvesterhci.io:cloudprovider' },
    rules: [{ apiGroups: ['loadbalancer.harvesterhci.io'], resources: ['loadbalancers'], verbs: ['get', 'list', 'watch', 'update', 'create', 'delete'] }],
  },
  clusterRoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'default-prod-cloud-provider' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:csi-driver' },
    subjects: [{ kind: 'ServiceAccount', name: 'prod-cloud-provider', namespace: 'default' }],
  },
  role: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'lb-reader', namespace: 'default' },
    rules: [{ apiGroups: ['loadbalancer.harvesterhci.io'], resources: ['loadbalancers'], resourceNames: ['lb1'], verbs: ['get'] }],
  },
  roleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'default-prod-cloud-provider', namespace: 'default' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:cloudprovider' },
    subjects: [{ kind: 'ServiceAccount', name: 'prod-cloud-provider', namespace: 'default' }],
  },
};

/** A fresh copy of the valid example of a kind. */
export function valid(kind: KindKey): KubeObject {
  return structuredClone(VALID[kind]);
}

/** One broken variant and what the validator must say about it. */
export interface BrokenCase {
  kind: KindKey;
  name: string;
  object: KubeObject;
  /** A schema violation: the cause's reason and field. */
  cause?: { reason: string; field: string };
  /** An unknown field that must be pruned and reported (valid otherwise). */
  unknownField?: string;
}

function broken(kind: KindKey, name: string, change: (o: Record<string, any>) => void, expect: Omit<BrokenCase, 'kind' | 'name' | 'object'>): BrokenCase {
  const object = valid(kind);
  change(object);
  return { kind, name, object, ...expect };
}

/** Per CRD kind: wrong enum, missing required field, wrong type, unknown field. */
export const BROKEN_CASES: BrokenCase[] = [
  broken('loadBalancer', 'ipam not in enum', (o) => (o.spec.ipam = 'static'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.ipam' } }),
  broken('loadBalancer', 'workloadType not in enum', (o) => (o.spec.workloadType = 'pod'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.workloadType' } }),
  broken('loadBalancer', 'listener without backendPort', (o) => delete o.spec.listeners[0].backendPort, { cause: { reason: 'FieldValueRequired', field: 'spec.listeners[0].backendPort' } }),
  broken('loadBalancer', 'no spec', (o) => delete o.spec, { cause: { reason: 'FieldValueRequired', field: 'spec' } }),
  broken('loadBalancer', 'port as string', (o) => (o.spec.listeners[0].port = '80'), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.listeners[0].port' } }),
  broken('loadBalancer', 'selector values not a list', (o) => (o.spec.backendServerSelector = { app: 'web' }), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.backendServerSelector.app' } }),
  broken('loadBalancer', 'unknown listener field', (o) => (o.spec.listeners[0].targetPort = 8080), { unknownField: 'spec.listeners[0].targetPort' }),
  broken('loadBalancer', 'unknown spec field', (o) => (o.spec.backendServers = ['10.0.0.1']), { unknownField: 'spec.backendServers' }),
  broken('ipPool', 'no ranges', (o) => delete o.spec.ranges, { cause: { reason: 'FieldValueRequired', field: 'spec.ranges' } }),
  broken('ipPool', 'range without subnet', (o) => delete o.spec.ranges[0].subnet, { cause: { reason: 'FieldValueRequired', field: 'spec.ranges[0].subnet' } }),
  broken('ipPool', 'status without total', (o) => delete o.status.total, { cause: { reason: 'FieldValueRequired', field: 'status.total' } }),
  broken('ipPool', 'priority as string', (o) => (o.spec.selector.priority = 'high'), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.selector.priority' } }),
  broken('ipPool', 'scope as a map', (o) => (o.spec.selector.scope = { namespace: 'default' }), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.selector.scope' } }),
  broken('ipPool', 'unknown range field', (o) => (o.spec.ranges[0].vlan = 20), { unknownField: 'spec.ranges[0].vlan' }),
  broken('virtualMachineImage', 'sourceType not in enum', (o) => (o.spec.sourceType = 'http'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.sourceType' } }),
  broken('virtualMachineImage', 'backend not in enum', (o) => (o.spec.backend = 'longhorn'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.backend' } }),
  broken('virtualMachineImage', 'no displayName', (o) => delete o.spec.displayName, { cause: { reason: 'FieldValueRequired', field: 'spec.displayName' } }),
  broken('virtualMachineImage', 'retry above maximum', (o) => (o.spec.retry = 11), { cause: { reason: 'FieldValueInvalid', field: 'spec.retry' } }),
  broken('virtualMachineImage', 'size as string', (o) => (o.status.size = '600Mi'), { cause: { reason: 'FieldValueTypeInvalid', field: 'status.size' } }),
  broken('virtualMachineImage', 'unknown spec field', (o) => (o.spec.imageName = 'x'), { unknownField: 'spec.imageName' }),
  broken('keyPair', 'no publicKey', (o) => delete o.spec.publicKey, { cause: { reason: 'FieldValueRequired', field: 'spec.publicKey' } }),
  broken('keyPair', 'condition without status', (o) => delete o.status.conditions[0].status, { cause: { reason: 'FieldValueRequired', field: 'status.conditions[0].status' } }),
  broken('keyPair', 'publicKey as list', (o) => (o.spec.publicKey = ['ssh-ed25519 AAAA']), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.publicKey' } }),
  broken('keyPair', 'unknown spec field', (o) => (o.spec.privateKey = 'nope'), { unknownField: 'spec.privateKey' }),
  broken('setting', 'value as number', (o) => (o.value = 18), { cause: { reason: 'FieldValueTypeInvalid', field: 'value' } }),
  broken('setting', 'customized as string', (o) => (o.customized = 'yes'), { cause: { reason: 'FieldValueTypeInvalid', field: 'customized' } }),
  broken('setting', 'unknown top-level field', (o) => (o.spec = { value: 'x' }), { unknownField: 'spec' }),
  broken('clusterNetwork', 'condition without type', (o) => delete o.status.conditions[0].type, { cause: { reason: 'FieldValueRequired', field: 'status.conditions[0].type' } }),
  broken('clusterNetwork', 'unknown spec', (o) => (o.spec = { mtu: 1500 }), { unknownField: 'spec' }),
  broken('vlanConfig', 'no uplink', (o) => delete o.spec.uplink, { cause: { reason: 'FieldValueRequired', field: 'spec.uplink' } }),
  broken('vlanConfig', 'bond mode not in enum', (o) => (o.spec.uplink.bondOptions.mode = 'lacp'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.uplink.bondOptions.mode' } }),
  broken('vlanConfig', 'negative mtu', (o) => (o.spec.uplink.linkAttributes.mtu = -1), { cause: { reason: 'FieldValueInvalid', field: 'spec.uplink.linkAttributes.mtu' } }),
  broken('networkAttachmentDefinition', 'no config', (o) => delete o.spec.config, { cause: { reason: 'FieldValueRequired', field: 'spec.config' } }),
  broken('networkAttachmentDefinition', 'config as object', (o) => (o.spec.config = { type: 'bridge' }), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.config' } }),
  broken('networkAttachmentDefinition', 'unknown spec field', (o) => (o.spec.vlan = 20), { unknownField: 'spec.vlan' }),
  broken('virtualMachine', 'no template', (o) => delete o.spec.template, { cause: { reason: 'FieldValueRequired', field: 'spec.template' } }),
  broken('virtualMachine', 'no domain', (o) => delete o.spec.template.spec.domain, { cause: { reason: 'FieldValueRequired', field: 'spec.template.spec.domain' } }),
  broken('virtualMachine', 'disk without name', (o) => delete o.spec.template.spec.domain.devices.disks[1].name, { cause: { reason: 'FieldValueRequired', field: 'spec.template.spec.domain.devices.disks[1].name' } }),
  broken('virtualMachine', 'multus without networkName', (o) => (o.spec.template.spec.networks[0].multus = {}), { cause: { reason: 'FieldValueRequired', field: 'spec.template.spec.networks[0].multus.networkName' } }),
  broken('virtualMachine', 'cores as string', (o) => (o.spec.template.spec.domain.cpu.cores = 'four'), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.template.spec.domain.cpu.cores' } }),
  broken('virtualMachine', 'running as string', (o) => (o.spec.running = 'true'), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.running' } }),
  broken('virtualMachine', 'memory not a quantity', (o) => (o.spec.template.spec.domain.memory.guest = '4 gigs'), { cause: { reason: 'FieldValueInvalid', field: 'spec.template.spec.domain.memory.guest' } }),
  broken('virtualMachine', 'bad condition time', (o) => (o.status.conditions[0].lastTransitionTime = 'yesterday'), { cause: { reason: 'FieldValueTypeInvalid', field: 'status.conditions[0].lastTransitionTime' } }),
  broken('virtualMachine', 'dataVolume contentType not in enum', (o) => (o.spec.dataVolumeTemplates = [{ spec: { contentType: 'raw' } }]), { cause: { reason: 'FieldValueNotSupported', field: 'spec.dataVolumeTemplates[0].spec.contentType' } }),
  broken('virtualMachine', 'unknown disk field', (o) => (o.spec.template.spec.domain.devices.disks[0].size = '10Gi'), { unknownField: 'spec.template.spec.domain.devices.disks[0].size' }),
  broken('virtualMachine', 'unknown interface binding', (o) => (o.spec.template.spec.domain.devices.interfaces[0].vlan = 20), { unknownField: 'spec.template.spec.domain.devices.interfaces[0].vlan' }),
  broken('virtualMachine', 'unknown spec field', (o) => (o.spec.replicas = 3), { unknownField: 'spec.replicas' }),
  broken('virtualMachineInstance', 'no spec', (o) => delete o.spec, { cause: { reason: 'FieldValueRequired', field: 'spec' } }),
  broken('virtualMachineInstance', 'no devices', (o) => delete o.spec.domain.devices, { cause: { reason: 'FieldValueRequired', field: 'spec.domain.devices' } }),
  broken('virtualMachineInstance', 'ipAddresses as string', (o) => (o.status.interfaces[0].ipAddresses = '10.0.20.31'), { cause: { reason: 'FieldValueTypeInvalid', field: 'status.interfaces[0].ipAddresses' } }),
  broken('virtualMachineInstance', 'claim without claimName', (o) => (o.spec.volumes[1].persistentVolumeClaim = { readOnly: true }), { cause: { reason: 'FieldValueRequired', field: 'spec.volumes[1].persistentVolumeClaim.claimName' } }),
  broken('virtualMachineInstance', 'unknown status field', (o) => (o.status.ip = '10.0.20.31'), { unknownField: 'status.ip' }),
  broken('virtualMachineInstanceMigration', 'vmiName as number', (o) => (o.spec.vmiName = 7), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.vmiName' } }),
  broken('virtualMachineInstanceMigration', 'unknown spec field', (o) => (o.spec.targetNode = 'harvester-node-2'), { unknownField: 'spec.targetNode' }),
];

/** Broken variants of the core kinds (no CRD to compare with; unit-tested only). */
export const CORE_BROKEN_CASES: BrokenCase[] = [
  broken('service', 'type not in enum', (o) => (o.spec.type = 'Ingress'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.type' } }),
  broken('service', 'port out of range', (o) => (o.spec.ports[0].port = 70000), { cause: { reason: 'FieldValueInvalid', field: 'spec.ports[0].port' } }),
  broken('service', 'targetPort as boolean', (o) => (o.spec.ports[0].targetPort = true), { cause: { reason: 'FieldValueTypeInvalid', field: 'spec.ports[0].targetPort' } }),
  broken('service', 'unknown spec field', (o) => (o.spec.loadBalancerIPs = ['1.2.3.4']), { unknownField: 'spec.loadBalancerIPs' }),
  broken('secret', 'data not base64', (o) => (o.data.userdata = '#cloud-config'), { cause: { reason: 'FieldValueTypeInvalid', field: 'data.userdata' } }),
  broken('node', 'taint without effect', (o) => delete o.spec.taints[0].effect, { cause: { reason: 'FieldValueRequired', field: 'spec.taints[0].effect' } }),
  broken('node', 'taint effect not in enum', (o) => (o.spec.taints[0].effect = 'NoWay'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.taints[0].effect' } }),
  broken('persistentVolumeClaim', 'volumeMode not in enum', (o) => (o.spec.volumeMode = 'Raw'), { cause: { reason: 'FieldValueNotSupported', field: 'spec.volumeMode' } }),
  broken('persistentVolumeClaim', 'storage not a quantity', (o) => (o.spec.resources.requests.storage = 'forty gigs'), { cause: { reason: 'FieldValueInvalid', field: 'spec.resources.requests.storage' } }),
  broken('namespace', 'phase not in enum', (o) => (o.status.phase = 'Gone'), { cause: { reason: 'FieldValueNotSupported', field: 'status.phase' } }),
  broken('configMap', 'data value as number', (o) => (o.data['interface-nad-mapping'] = 1), { cause: { reason: 'FieldValueTypeInvalid', field: 'data.interface-nad-mapping' } }),
  broken('storageClass', 'no provisioner', (o) => delete o.provisioner, { cause: { reason: 'FieldValueRequired', field: 'provisioner' } }),
];
