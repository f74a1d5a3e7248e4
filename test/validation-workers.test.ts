/**
 * `hcc control-center --validation-workers N`: new HostedClusters and NodePools are checked on
 * worker threads, and kubectl sees exactly what it sees when they are checked on the request
 * thread (`--validation-workers 0`): the same created objects, the same errors for the negative
 * CEL cases of testdata/hypershift. /metrics shows where the checks ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { hccBin, kubectl, testdata } from './helpers/tools.js';
import { startControlCenterProcess, type ControlCenterProcess } from './helpers/processes.js';

/** The documents of the negative-cases file, and the valid v1beta1 HostedClusters of input 08. */
const negative = readFileSync(path.join(testdata, '15-negative-crd-validation-cases.yaml'), 'utf8')
  .split(/^---\s*$/m)
  .filter((d) => /^kind:/m.test(d))
  .map((d) => d.replace(/namespace: \S+/, 'namespace: checks'));
const valid = readFileSync(path.join(testdata, '08-kubevirt-v1beta1-cli-render-storage-tolerations-nads.yaml'), 'utf8')
  .split(/^---\s*$/m)
  .filter((d) => /^kind: (HostedCluster|NodePool)\s*$/m.test(d))
  .map((d) => d.replace(/namespace: \S+/, 'namespace: checks'));

const metric = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : NaN;
};

describe('validation workers', () => {
  let withWorkers: ControlCenterProcess;
  let inProcess: ControlCenterProcess;
  beforeAll(async () => {
    [withWorkers, inProcess] = await Promise.all([
      startControlCenterProcess({ extraArgs: ['--validation-workers', '2'] }),
      startControlCenterProcess({ extraArgs: ['--validation-workers', '0'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([withWorkers?.stop(), inProcess?.stop()]);
  });

  it('answers kubectl exactly as the in-process check does', async () => {
    expect(negative.length).toBeGreaterThanOrEqual(6);
    expect(valid.length).toBeGreaterThanOrEqual(2);
    const results: Record<string, string[]> = {};
    for (const [name, cc] of [['workers', withWorkers], ['in-process', inProcess]] as const) {
      const k = (args: string[], input?: string) => kubectl('1.35', cc.kubeconfig, args, { input });
      expect((await k(['create', 'namespace', 'checks'])).code).toBe(0);
      const out: string[] = [];
      for (const doc of [...negative, ...valid]) {
        const r = await k(['create', '-f', '-'], doc);
        out.push(`${r.code} ${r.stdout.trim()} ${r.stderr.trim()}`);
      }
      const stored = JSON.parse((await k(['get', 'hc,np', '-n', 'checks', '-o', 'json'])).stdout) as { items: { kind: string; metadata: { name: string }; spec: unknown }[] };
      out.push(...stored.items.map((o) => `${o.kind}/${o.metadata.name} ${JSON.stringify(o.spec)}`));
      results[name] = out;
    }
    expect(results.workers).toEqual(results['in-process']);
    // Both refused the negative cases with their messages and stored the valid objects.
    expect(results.workers!.filter((l) => l.startsWith('1 ')).length).toBeGreaterThanOrEqual(6);
    expect(results.workers!.some((l) => l.startsWith('HostedCluster/'))).toBe(true);
    expect(results.workers!.some((l) => l.startsWith('NodePool/'))).toBe(true);
  });

  it('shows in /metrics that the checks ran on the workers', async () => {
    const w = (await kubectl('1.35', withWorkers.kubeconfig, ['get', '--raw', '/metrics'])).stdout;
    expect(metric(w, 'hcc_validation_workers')).toBe(2);
    expect(metric(w, 'hcc_validation_checks_total{where="worker"}')).toBeGreaterThanOrEqual(negative.length);
    expect(metric(w, 'hcc_validation_checks_total{where="in-process"}')).toBeNaN();
    const p = (await kubectl('1.35', inProcess.kubeconfig, ['get', '--raw', '/metrics'])).stdout;
    expect(metric(p, 'hcc_validation_workers')).toBe(0);
    expect(metric(p, 'hcc_validation_checks_total{where="worker"}')).toBeNaN();
    expect(metric(p, 'hcc_validation_checks_total{where="in-process"}')).toBeGreaterThanOrEqual(negative.length);
  });

  it.each(['-1', '1.5', 'abc', '65', '', ' ', '2 ', '0x2', '1e1'])('refuses the worker count %j', (bad) => {
    const r = spawnSync(process.execPath, [hccBin, 'control-center', '--validation-workers', bad], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`option '--validation-workers <n>' argument '${bad}' is invalid. must be an integer from 0 to 64`);
  });
});
