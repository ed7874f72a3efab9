/**
 * The reasons live in the repository: code and docs cite docs/design/ (our own words, with the upstream source),
 * never the research notes beside the repository, and every docs/design citation resolves to a page, and to a
 * heading of it when it names one (#anchor, §"Heading", §N, §label); a "trap N" names a trap of
 * docs/design/dynamic-host-contract.md. The checks: test/support/design-citations.ts. Every scanned folder is held
 * to it, emulator/ included.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../scripts/resource-docs';
import {
  DesignPages,
  citationProblems,
  designCitationProblems,
  formatProblems,
  headingsOf,
  researchCitations,
  resolveSection,
  slug,
  trapNumbers,
  trapProblems,
} from '../support/design-citations';

const root = repoRoot(__dirname);
const problems = citationProblems(root);

describe('design citations: the reasons live in the repository', () => {
  it('no source or doc cites a research note', () => {
    const research = problems.filter((p) => p.kind === 'research');
    assert.equal(research.length, 0, `cite docs/design/<topic>.md instead:\n${formatProblems(research)}`);
  });

  it('every docs/design citation names a page and a heading that exist', () => {
    const broken = problems.filter((p) => p.kind === 'design');
    assert.equal(broken.length, 0, `fix the citation or the page:\n${formatProblems(broken)}`);
  });

  it('every "trap N" names a trap of docs/design/dynamic-host-contract.md, in a file citing that page', () => {
    const traps = problems.filter((p) => p.kind === 'trap');
    assert.equal(traps.length, 0, formatProblems(traps));
  });

  it('the traps keep their numbers 1 to 14', () => {
    const traps = trapNumbers(readFileSync(join(root, 'docs/design/dynamic-host-contract.md'), 'utf8'));
    assert.deepEqual([...traps], Array.from({ length: 14 }, (_, i) => i + 1));
  });
});

describe('design citations: the checker', () => {
  const pages = new DesignPages(root);
  const cite = (text: string, file = 'provider/x.ts') => designCitationProblems(root, pages, file, text).map((p) => p.problem);

  it('finds research cited by file name, by section and in prose, but not our own page of the same name', () => {
    const found = (text: string, file = 'provider/x.ts') => researchCitations(root, file, text).length;
    assert.equal(found(' * builds (harvester-api.md §A.5–§A.8) so'), 3);
    assert.equal(found(' * host (pulumi-tech.md §1.7 traps 1-3)'), 1);
    assert.equal(found(' * retries (kube-api-emulator research §7)'), 2);
    assert.equal(found(' * (research §4.9) and (§A.12)'), 2);
    assert.equal(found(' * ../shared/research/anchors.md'), 1);
    assert.equal(found('| [GuestClusterCredentials](guest-cluster-credentials.md) |', 'docs/resources/README.md'), 0);
    assert.equal(found('<!-- from docs/src/resources/guest-cluster-credentials.md -->', 'docs/resources/x.md'), 0);
  });

  it('takes GitHub anchors and §-references to a page as they resolve', () => {
    assert.equal(slug("§launcher pod: what the scheduler and quotas see"), 'launcher-pod-what-the-scheduler-and-quotas-see');
    assert.deepEqual(headingsOf('# A\n## x\n```\n## not a heading\n```\n## x\n').map((h) => h.anchor), ['a', 'x', 'x-1']);
    const headings = headingsOf('## 4. Field managers\n## §launcher pod: what it sees\n## Cloud provider\n');
    assert.deepEqual(resolveSection('"Cloud provider") …', headings), { used: '"Cloud provider"'.length });
    assert.deepEqual(resolveSection('4): …', headings), { used: 1 });
    assert.deepEqual(resolveSection('launcher pod, §x', headings), { used: 'launcher pod'.length });
    assert.ok('error' in resolveSection('"Cloud"', headings));
    assert.ok('error' in resolveSection('5', headings));
    assert.ok('error' in resolveSection('launcher', headings));
  });

  it('refuses a missing page, anchor or heading, also across a wrapped comment line', () => {
    assert.deepEqual(cite(' * see docs/design/dynamic-host-contract.md#traps and docs/design/harvester-vms.md §"Readiness"'), []);
    assert.match(cite(' * see docs/design/no-such-page.md')[0], /no-such-page\.md, which does not exist/);
    assert.match(cite(' * see docs/design/harvester-vms.md#no-such-anchor')[0], /no such heading anchor/);
    assert.match(cite(' * see (docs/design/harvester-vms.md §"Ready\n * ness")')[0], /has no heading "Ready ness"/);
    assert.deepEqual(cite(' * see (docs/design/harvester-vms.md §"Create\n * order")'), []);
    assert.match(cite('[x](../design/harvester-vms.md#nope)', 'docs/guides/x.md')[0], /harvester-vms\.md#nope/);
    assert.deepEqual(cite('[x](harvester-vms.md#readiness)', 'docs/design/x.md'), []);
    assert.deepEqual(cite('[x](#readiness)', 'docs/design/harvester-vms.md'), []);
    assert.match(cite('[x](#ready)', 'docs/design/harvester-vms.md')[0], /harvester-vms\.md#ready: .* no such heading anchor/);
  });

  it('refuses a trap number the contract does not list, and a trap named without the page', () => {
    const traps = new Set([1, 2, 3, 9, 10]);
    assert.deepEqual(trapProblems('f.ts', 'traps 1-3 and trap 10 (docs/design/dynamic-host-contract.md)', traps), []);
    assert.match(trapProblems('f.ts', 'trap 15 of docs/design/dynamic-host-contract.md', traps)[0].problem, /trap 15/);
    assert.match(trapProblems('f.ts', '(trap 9)', traps)[0].problem, /without citing/);
  });
});
