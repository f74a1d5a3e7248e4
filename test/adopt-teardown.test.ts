/**
 * A same-named Secret that a management cluster's admin lets hcc take over (annotated adoptable)
 * is taken over for a HostedCluster that runs there, never for one being torn down: its data
 * would become the control center's just as its last user goes, and be released at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, waitFor } from './helpers/tools.js';
import { startHccUp, type HccUp } from './helpers/processes.js';
import { noneHostedCluster, pullSecret } from './helpers/manifests.js';

describe('an adoptable Secret and a HostedCluster deleted before it was taken over', () => {
  let hcc: HccUp;
  const ns = 'adopt';
  const k = (args: string[], input?: string) => kubectl('1.35', hcc.kubeconfig, args, { input });
  const mk = (args: string[], input?: string) => kubectl('1.35', hcc.mgmtKubeconfig('mgmt-1'), args, { input });
  const theirs = async () => JSON.parse((await mk(['get', 'secret', 'j-pull-secret', '-n', ns, '-o', 'json'])).stdout);

  beforeAll(async () => {
    hcc = await startHccUp(['--management-clusters', '1']);
  });
  afterAll(async () => {
    await hcc?.stop();
  });

  it("keeps the management cluster's Secret as it was", async () => {
    expect((await mk(['create', 'namespace', ns])).code).toBe(0);
    expect((await mk(['create', 'secret', 'generic', 'j-pull-secret', '-n', ns, '--from-literal=.dockerconfigjson={"theirs":1}'])).code).toBe(0);
    expect((await k(['create', 'namespace', ns])).code).toBe(0);
    const applied = await k(['apply', '-f', '-'], [pullSecret('j', ns), noneHostedCluster('j', ns)].join('---\n'));
    expect(applied.code, applied.stderr).toBe(0);
    await waitFor('the CopyBlocked Event', async () =>
      JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=CopyBlocked,involvedObject.name=j-pull-secret', '-o', 'json'])).stdout).items[0], 30_000);
    // Consent comes; the syncer looks again within a minute, but the HostedCluster goes first.
    expect((await mk(['annotate', 'secret', 'j-pull-secret', '-n', ns, 'controlcenter.hcc.dev/adoptable=true'])).code).toBe(0);
    const deleted = await k(['delete', 'hc', 'j', '-n', ns, '--timeout=60s']);
    expect(deleted.code, deleted.stderr).toBe(0);
    // The end of the teardown wakes the Secret's key: it was taken over then, and released at once.
    await new Promise((r) => setTimeout(r, 5000));
    const s = await theirs();
    expect(Buffer.from(s.data['.dockerconfigjson'], 'base64').toString()).toBe('{"theirs":1}');
    expect(s.metadata.annotations?.['controlcenter.hcc.dev/adopted']).toBeUndefined();
    const adopted = JSON.parse((await k(['get', 'events', '-n', ns, '--field-selector', 'reason=Adopted', '-o', 'json'])).stdout).items;
    expect(adopted).toEqual([]);
  });
});
