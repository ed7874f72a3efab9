/**
 * The `runcmd` commands that install and start RKE2, as the emulator recognises them (docs/design/guest-rke2.md
 * §"Install and start commands"; rke2-docs install/quickstart.md and install/configuration.md, rancher/rke2
 * install.sh):
 *
 * - the install script: `curl -sfL https://get.rke2.io | [sudo] [VAR=value …] sh [-s] [-] …` (or `wget -qO-`, or
 *   the script's GitHub/mirror URL), or a local copy run as `[VAR=value …] sh /path/install.sh` (the air-gapped
 *   form, with `INSTALL_RKE2_ARTIFACT_PATH`). Its variables come from the command's prefix and from earlier
 *   `export`s: `INSTALL_RKE2_VERSION`, `INSTALL_RKE2_CHANNEL` (default `stable`), `INSTALL_RKE2_TYPE` (alias
 *   `INSTALL_RKE2_EXEC`), `INSTALL_RKE2_ARTIFACT_PATH`. A prefix on `curl` applies to curl, not to the script;
 *   extra arguments after `sh -s -` are ignored (the current script reads only its variables);
 * - starting a unit: `systemctl start|restart rke2-server[.service]`, `systemctl enable --now …`; `enable` alone
 *   only starts it at the next boot, which the emulator does not simulate.
 *
 * Which service runs decides the node's role (the tarball installs both units; INSTALL_RKE2_TYPE only picks the
 * RPM package), which is why CAPRKE2 masks the other unit.
 */
import { Pipeline, SimpleCommand, unwrap } from './shell';

/** RKE2's two systemd units. */
export type Rke2Role = 'server' | 'agent';

/** One recognised step, in `runcmd` order. */
export type InstallStep =
  | { type: 'install'; version?: string; channel: string; installType?: string; artifactPath?: string }
  | { type: 'start'; role: Rke2Role }
  | { type: 'enable'; role: Rke2Role };

const SCRIPT_URLS = [/(^|\/\/)get\.rke2\.io(\/|$)/, /\/rancher\/rke2\/[^/]+\/install\.sh$/, /\/rke2\/install\.sh$/];
const SHELLS = new Set(['sh', 'bash', 'dash']);

function base(word: string | undefined): string {
  return (word ?? '').split('/').pop() ?? '';
}

function downloadsScript(command: SimpleCommand): boolean {
  const tool = base(unwrap(command).argv[0]);
  return (tool === 'curl' || tool === 'wget') && command.argv.some((w) => SCRIPT_URLS.some((re) => re.test(w)));
}

function installStep(env: Record<string, string>): InstallStep {
  const version = env.INSTALL_RKE2_VERSION?.trim();
  return {
    type: 'install',
    version: version ? version : undefined,
    channel: env.INSTALL_RKE2_CHANNEL?.trim() || 'stable',
    installType: env.INSTALL_RKE2_TYPE ?? env.INSTALL_RKE2_EXEC,
    artifactPath: env.INSTALL_RKE2_ARTIFACT_PATH,
  };
}

function unitRole(word: string): Rke2Role | undefined {
  const unit = word.replace(/\.service$/, '');
  if (unit === 'rke2-server') return 'server';
  if (unit === 'rke2-agent') return 'agent';
  return undefined;
}

function systemctlSteps(argv: string[]): InstallStep[] {
  const words = argv.slice(1);
  const verb = words.find((w) => !w.startsWith('-'));
  const roles = words.map(unitRole).filter((r): r is Rke2Role => r !== undefined);
  if (!verb || roles.length === 0) return [];
  const now = words.includes('--now');
  if (verb === 'start' || verb === 'restart' || verb === 'reload-or-restart' || verb === 'try-restart' || (verb === 'enable' && now)) {
    return roles.map((role) => ({ type: 'start', role }));
  }
  if (verb === 'enable' || verb === 'reenable') return roles.map((role) => ({ type: 'enable', role }));
  return [];
}

/** The install/start steps of `runcmd`, in order. */
export function installSteps(pipelines: Pipeline[]): InstallStep[] {
  const exported: Record<string, string> = {};
  const steps: InstallStep[] = [];
  for (const pipeline of pipelines) {
    const last = unwrap(pipeline[pipeline.length - 1]);
    const name = base(last.argv[0]);
    if (pipeline.length === 1 && name === 'export') {
      for (const word of last.argv.slice(1)) {
        const eq = word.indexOf('=');
        if (eq > 0) exported[word.slice(0, eq)] = word.slice(eq + 1);
      }
      continue;
    }
    const env = { ...exported, ...last.assignments };
    if (pipeline.length > 1 && SHELLS.has(name) && pipeline.slice(0, -1).some(downloadsScript)) {
      steps.push(installStep(env));
      continue;
    }
    const script = SHELLS.has(name) ? last.argv.find((w, i) => i > 0 && !w.startsWith('-')) : last.argv[0];
    if (pipeline.length === 1 && script !== undefined && base(script) === 'install.sh' && (SHELLS.has(name) || script.includes('/'))) {
      steps.push(installStep(env));
      continue;
    }
    if (name === 'systemctl') steps.push(...systemctlSteps(last.argv));
  }
  return steps;
}
