/**
 * `spec.domain` of a KubeVirt VirtualMachineInstance (kubevirt.io/v1, as of KubeVirt 1.6/1.7): the virtual
 * hardware. Every property name KubeVirt defines at the levels below is listed, so unknown names are pruned
 * as on a real cluster; the parts the Harvester node driver builds (cpu, memory, resources, disks,
 * interfaces, firmware/EFI, TPM, host devices) are typed in full, the rest (Hyper-V, SEV, kernel boot,
 * block sizes, DHCP options) are kept opaque. KubeVirt's schema puts few enums on these strings: bus
 * names, models and policies are checked by its admission webhook, not by the CRD, so they are plain
 * strings here too.
 */
import { JsonSchema } from '../../api/types';
import { arr, bool, empty, int, int32, obj, opaque, quantity, resourceList, str } from '../schema/builders';

const featureState = obj({ enabled: bool() });

const cpu = obj({
  cores: int32(),
  sockets: int32(),
  threads: int32(),
  maxSockets: int32(),
  model: str(),
  dedicatedCpuPlacement: bool(),
  isolateEmulatorThread: bool(),
  features: arr(obj({ name: str(), policy: str() }, ['name'])),
  numa: obj({ guestMappingPassthrough: empty() }),
  realtime: obj({ mask: str() }),
});

const memory = obj({ guest: quantity(), maxGuest: quantity(), hugepages: obj({ pageSize: str() }) });

const firmware = obj({
  uuid: str(),
  serial: str(),
  acpi: obj({ msdmNameRef: str(), slicNameRef: str() }),
  bootloader: obj({
    bios: obj({ useSerial: bool() }),
    efi: obj({ persistent: bool(), secureBoot: bool() }),
  }),
  kernelBoot: obj({ container: opaque({ required: ['image'] }), kernelArgs: str() }),
});

const features = obj({
  acpi: featureState,
  apic: obj({ enabled: bool(), endOfInterrupt: bool() }),
  hyperv: opaque(),
  hypervPassthrough: featureState,
  kvm: obj({ hidden: bool() }),
  pvspinlock: featureState,
  smm: featureState,
});

const diskTarget = obj({ bus: str(), pciAddress: str(), readonly: bool() });

/** One entry of `devices.disks`: exactly one of disk/cdrom/lun says how the volume is attached. */
const disk = obj(
  {
    name: str(),
    bootOrder: int(),
    disk: diskTarget,
    cdrom: obj({ bus: str(), readonly: bool(), tray: str() }),
    lun: obj({ bus: str(), readonly: bool(), reservation: bool() }),
    blockSize: opaque(),
    cache: str(),
    dedicatedIOThread: bool(),
    errorPolicy: str(),
    io: str(),
    serial: str(),
    shareable: bool(),
    tag: str(),
  },
  ['name'],
);

/** One entry of `devices.interfaces`: the binding (bridge for Harvester VM networks, masquerade for pod). */
const iface = obj(
  {
    name: str(),
    model: str(),
    macAddress: str(),
    bootOrder: int(),
    bridge: empty(),
    masquerade: empty(),
    slirp: empty(),
    sriov: empty(),
    macvtap: empty(),
    passt: empty(),
    binding: obj({ name: str() }, ['name']),
    acpiIndex: int(),
    dhcpOptions: opaque(),
    pciAddress: str(),
    ports: arr(obj({ name: str(), port: int32(), protocol: str() }, ['port'])),
    state: str(),
    tag: str(),
  },
  ['name'],
);

const hostDevice = obj({ name: str(), deviceName: str(), claimName: str(), requestName: str(), tag: str() }, ['name']);

const devices = obj({
  disks: arr(disk),
  interfaces: arr(iface),
  hostDevices: arr(hostDevice),
  gpus: arr(
    obj(
      { name: str(), deviceName: str(), claimName: str(), requestName: str(), tag: str(), virtualGPUOptions: opaque() },
      ['name'],
    ),
  ),
  filesystems: arr(opaque({ required: ['name', 'virtiofs'] })),
  inputs: arr(obj({ name: str(), type: str(), bus: str() }, ['name', 'type'])),
  panicDevices: arr(obj({ model: str() })),
  tpm: obj({ enabled: bool(), persistent: bool() }),
  rng: empty(),
  sound: obj({ name: str(), model: str() }, ['name']),
  video: obj({ type: str() }),
  watchdog: obj({ name: str(), diag288: opaque(), i6300esb: opaque() }, ['name']),
  clientPassthrough: empty(),
  downwardMetrics: empty(),
  autoattachGraphicsDevice: bool(),
  autoattachInputDevice: bool(),
  autoattachMemBalloon: bool(),
  autoattachPodInterface: bool(),
  autoattachSerialConsole: bool(),
  autoattachVSOCK: bool(),
  blockMultiQueue: bool(),
  disableHotplug: bool(),
  logSerialConsole: bool(),
  networkInterfaceMultiqueue: bool(),
  useVirtioTransitional: bool(),
});

/** `spec.domain` (required: devices). */
export const domain: JsonSchema = obj(
  {
    cpu,
    memory,
    resources: obj({ limits: resourceList(), requests: resourceList(), overcommitGuestOverhead: bool() }),
    machine: obj({ type: str() }),
    firmware,
    features,
    devices,
    chassis: obj({ asset: str(), manufacturer: str(), serial: str(), sku: str(), version: str() }),
    clock: opaque(),
    ioThreads: obj({ supplementalPoolThreadCount: int32() }),
    ioThreadsPolicy: str(),
    launchSecurity: opaque(),
  },
  ['devices'],
);
