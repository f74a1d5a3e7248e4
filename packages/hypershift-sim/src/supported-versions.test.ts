import { describe, expect, it } from 'vitest';
import { supportedVersionsConfigMap } from './supported-versions.js';

describe('supportedVersionsConfigMap', () => {
  it('has the shape the operator writes', () => {
    expect(supportedVersionsConfigMap(['4.17', '4.16', '4.15', '4.14'])).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'supported-versions', namespace: 'hypershift', labels: { 'hypershift.openshift.io/supported-versions': 'true' } },
      data: { 'server-version': 'hcc-hypershift-sim', 'supported-versions': '{"versions":["4.17","4.16","4.15","4.14"]}' },
    });
  });
});
