/**
 * What `journalctl -u rke2-server` (or rke2-agent) would show for a simulated node, and the cluster-level lines
 * (members, cloud controller): bounded, timestamped on the emulator's clock. The emulator's handle exposes it; a
 * real provider cannot read it (docs/design/guest-rke2.md §"What a provider can observe").
 */
import { Clock } from '../../clock';

/** One journal line. */
export interface JournalLine {
  time: string;
  level: 'info' | 'warning' | 'error';
  message: string;
}

const LIMIT = 200;

/** A bounded journal; repeated identical lines (a retry loop) are kept once. */
export class Rke2Journal {
  private readonly lines: JournalLine[] = [];

  constructor(private readonly clock: Clock) {}

  private add(level: JournalLine['level'], message: string): void {
    const last = this.lines[this.lines.length - 1];
    if (last && last.level === level && last.message === message) return;
    this.lines.push({ time: this.clock.now().toISOString(), level, message });
    if (this.lines.length > LIMIT) this.lines.shift();
  }

  info(message: string): void {
    this.add('info', message);
  }

  warn(message: string): void {
    this.add('warning', message);
  }

  error(message: string): void {
    this.add('error', message);
  }

  entries(): JournalLine[] {
    return [...this.lines];
  }
}
