/**
 * The quickstart for Terraform users: a CDK for Terraform app with the same resources as examples/quickstart —
 * topology labels on three hosts, a 3-VM machine pool over their zones, an IP pool and a load balancer in front of
 * the pool — synthesized to Terraform JSON for the hashicorp/kubernetes provider.
 *
 *   npm run build && node dist/examples/cdktf/main.js [outdir]     (default outdir: cdktf.out)
 *   cd cdktf.out/stacks/harvester && terraform init && terraform apply -var kubeconfig=~/harvester.yaml
 *
 * examples/cdktf/cdk.tf.json is the committed synth output; test/cdktf/ fails when it is stale.
 */
import { App, Fn, LocalBackend, TerraformOutput, TerraformStack, TerraformVariable } from 'cdktf';
import type { Construct } from 'constructs';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { HarvesterIPPool, HarvesterLoadBalancer, HarvesterMachinePool, TopologyLabels } from '../../cdktf';

export class QuickstartStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    // A relative state path keeps the synthesized JSON the same on every machine.
    new LocalBackend(this, { path: 'terraform.harvester.tfstate' });
    const kubeconfig = new TerraformVariable(this, 'kubeconfig', { type: 'string', description: 'Path of the Harvester kubeconfig', default: '~/.kube/config' });
    new KubernetesProvider(this, 'harvester', { configPath: kubeconfig.stringValue });

    const site = new TopologyLabels(this, 'site', {
      hosts: {
        'harvester-node-0': { region: 'eu-west', zone: 'eu-west-a' },
        'harvester-node-1': { region: 'eu-west', zone: 'eu-west-b' },
        'harvester-node-2': { region: 'eu-west', zone: 'eu-west-c' },
      },
    });
    const workers = new HarvesterMachinePool(this, 'workers', {
      count: 3,
      cpu: 2,
      memory: '4Gi',
      disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '20Gi' }],
      networks: [{ network: 'default/vm-net' }],
      zones: site.zones,
      guestCluster: 'quickstart',
      userData: '#cloud-config\npackage_update: true\nruncmd:\n  - echo "hello from harvester-iac"\n',
    });
    for (const vm of workers.vms) vm.node.addDependency(...site.labels);
    new HarvesterIPPool(this, 'quickstart-pool', {
      ranges: [{ subnet: '172.16.100.0/24', rangeStart: '172.16.100.200', rangeEnd: '172.16.100.220' }],
      selector: { network: 'default/vm-net', scope: [{ namespace: 'default' }] },
    });
    const lb = new HarvesterLoadBalancer(this, 'workers-api', {
      network: 'default/vm-net',
      ipPool: 'quickstart-pool',
      listeners: [{ name: 'kube-api', port: 6443, backendPort: 6443 }],
      backendServerSelector: workers.backendSelector,
      healthCheck: { port: 6443 },
    });
    new TerraformOutput(this, 'api_server_address', { value: Fn.lookupNested(lb.manifest!.object, ['status', 'address']) });
  }
}

/** Synthesizes the app into `outdir`. */
export function synthQuickstart(outdir: string): void {
  const app = new App({ outdir });
  new QuickstartStack(app, 'harvester');
  app.synth();
}

if (require.main === module) synthQuickstart(process.argv[2] ?? 'cdktf.out');
