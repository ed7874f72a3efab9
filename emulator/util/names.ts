/**
 * Label, annotation and finalizer keys of the real Harvester / KubeVirt / load-balancer-harvester /
 * harvester-cloud-provider code, as the upstream code spells them. What they mean, with the upstream sources, is in
 * docs/design/harvester-vms.md, docs/design/guest-cloud-provider.md, docs/design/harvester-load-balancer.md,
 * docs/design/harvester-networks.md and docs/design/harvester-images.md; KubeVirt's own bookkeeping keys are named
 * only here.
 */

// harvester/harvester pkg/util/constants.go, pkg/controller/master/virtualmachine/*
export const ANN_VOLUME_CLAIM_TEMPLATES = 'harvesterhci.io/volumeClaimTemplates';
export const ANN_MAC_ADDRESS = 'harvesterhci.io/mac-address';
export const ANN_VM_RUN_STRATEGY = 'harvesterhci.io/vmRunStrategy';
export const ANN_REMOVED_PVCS = 'harvesterhci.io/removedPersistentVolumeClaims';
export const ANN_REMOVE_ALL_PVCS = 'harvesterhci.io/removeAllPersistentVolumeClaims';
export const ANN_RESERVED_MEMORY = 'harvesterhci.io/reservedMemory';
export const ANN_NETWORK_ROUTE = 'network.harvesterhci.io/route';
export const LABEL_IMAGE_DISPLAY_NAME = 'harvesterhci.io/imageDisplayName';
export const LABEL_CREATOR = 'harvesterhci.io/creator';
export const CREATOR_NODE_DRIVER = 'docker-machine-driver-harvester';
export const LABEL_VM_NAME = 'harvesterhci.io/vmName';
export const LABEL_GUEST_CLUSTER = 'guestcluster.harvesterhci.io/name';
export const LABEL_VLAN_ID = 'network.harvesterhci.io/vlan-id';
export const LABEL_CLUSTER_NETWORK = 'network.harvesterhci.io/clusternetwork';
export const FINALIZER_VM_CLEANUP = 'wrangler.cattle.io/VMController.CleanupPVCAndSnapshot';

// KubeVirt
export const FINALIZER_KUBEVIRT_VM = 'kubevirt.io/virtualMachineControllerFinalize';
export const ANN_KUBEVIRT_LATEST_API = 'kubevirt.io/latest-observed-api-version';
export const ANN_KUBEVIRT_STORAGE_API = 'kubevirt.io/storage-observed-api-version';
export const LABEL_KUBEVIRT_NODE_NAME = 'kubevirt.io/nodeName';
export const LABEL_MIGRATION_TARGET_NODE = 'kubevirt.io/migrationTargetNodeName';
/** VirtualMachineInstanceMigration selector label (v1.MigrationSelectorLabel) and finalizer. */
export const LABEL_MIGRATION_VMI = 'kubevirt.io/vmi-name';
export const FINALIZER_MIGRATION = 'kubevirt.io/migrationJobFinalize';

// Kubernetes well-known labels
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_REGION = 'topology.kubernetes.io/region';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION_BETA = 'failure-domain.beta.kubernetes.io/region';
export const LABEL_ZONE_BETA = 'failure-domain.beta.kubernetes.io/zone';
export const TAINT_UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';

// load-balancer-harvester pkg/utils/const.go
export const FINALIZER_LB = 'wrangler.cattle.io/harvester-lb-controller';
export const ANN_LB_NETWORK = 'loadbalancer.harvesterhci.io/network';
export const ANN_LB_PROJECT = 'loadbalancer.harvesterhci.io/project';
export const ANN_LB_NAMESPACE = 'loadbalancer.harvesterhci.io/namespace';
export const ANN_LB_CLUSTER = 'loadbalancer.harvesterhci.io/cluster';
export const LABEL_POOL_VID = 'loadbalancer.harvesterhci.io/vid';
export const LABEL_GLOBAL_POOL = 'loadbalancer.harvesterhci.io/global-ip-pool';
export const ANN_MANAGEMENT_NETWORK = 'cloudprovider.harvesterhci.io/managementNetwork';
export const LABEL_LB_CLUSTER = 'cloudprovider.harvesterhci.io/cluster';
export const ANN_PROJECT_ID = 'field.cattle.io/projectId';
export const DHCP_ASK_ADDRESS = '0.0.0.0';

// harvester-cloud-provider pkg/utils/consts.go, pkg/cloud-controller-manager/*
export const ANN_SVC_IPAM = 'cloudprovider.harvesterhci.io/ipam';
export const ANN_SVC_NETWORK = 'cloudprovider.harvesterhci.io/network';
export const ANN_SVC_PROJECT = 'cloudprovider.harvesterhci.io/project';
export const ANN_SVC_NAMESPACE = 'cloudprovider.harvesterhci.io/namespace';
export const ANN_SVC_DESCRIPTION = 'cloudprovider.harvesterhci.io/description';
export const ANN_LB_NETWORK_CCM = 'cloudprovider.harvesterhci.io/lb-network';
export const ANN_SERVICE_UUID = 'cloudprovider.harvesterhci.io/service-uuid';
export const LABEL_SERVICE_NAMESPACE = 'cloudprovider.harvesterhci.io/serviceNamespace';
export const LABEL_SERVICE_NAME = 'cloudprovider.harvesterhci.io/serviceName';
export const ANN_HEALTHCHECK_PORT = 'cloudprovider.harvesterhci.io/healthcheck-port';
export const ANN_HEALTHCHECK_SUCCESS = 'cloudprovider.harvesterhci.io/healthcheck-success-threshold';
export const ANN_HEALTHCHECK_FAILURE = 'cloudprovider.harvesterhci.io/healthcheck-failure-threshold';
export const ANN_HEALTHCHECK_PERIOD = 'cloudprovider.harvesterhci.io/healthcheck-periodseconds';
export const ANN_HEALTHCHECK_TIMEOUT = 'cloudprovider.harvesterhci.io/healthcheck-timeoutseconds';
export const ANN_KUBE_VIP_IPS = 'kube-vip.io/loadbalancerIPs';
export const FINALIZER_SERVICE_LB_CLEANUP = 'service.kubernetes.io/load-balancer-cleanup';
/** NAD labels and ClusterNetwork/VlanConfig keys of harvester-network-controller (pkg/utils/labels.go). */
export const LABEL_NETWORK_TYPE = 'network.harvesterhci.io/type';
export const LABEL_NETWORK_READY = 'network.harvesterhci.io/ready';
export const ANN_UPLINK_MTU = 'network.harvesterhci.io/uplink-mtu';
export const ANN_MATCHED_NODES = 'network.harvesterhci.io/matched-nodes';
export const LABEL_WITNESS_NODE = 'node-role.harvesterhci.io/witness';
export const ANN_STORAGE_NETWORK = 'storage-network.settings.harvesterhci.io';
export const LABEL_EXCLUSIVE_VLAN = 'storage-network.settings.harvesterhci.io/exclusivevlan';
export const ANN_RWX_NETWORK = 'rwx-network.settings.harvesterhci.io';
/** The management cluster network every host is on from installation. */
export const MGMT_CLUSTER_NETWORK = 'mgmt';
/** The service account the network controller's own VlanConfig writes come from (cmd/webhook/main.go). */
export const NETWORK_CONTROLLER_USER = 'system:serviceaccount:harvester-system:harvester-network-controller';
