/**
 * Keys named like members of Object.prototype (`__proto__`, `constructor`, `toString`, ...) are
 * ordinary keys in user data: a ConfigMap's data may hold any key matching [-._a-zA-Z0-9]+, and
 * `constructor` is a valid label key. Every write path keeps them (create, update, merge and
 * strategic merge patch, server-side apply by one and by two managers), and a label key that is
 * invalid (`__proto__`) gets 422 from every path instead of being dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { allCRDs } from '@hcc/crds';
import type { RunningControlCenter } from './control-center.js';
import { startTestControlCenter } from './testing/in-process.js';

const CMS = '/api/v1/namespaces/keys/configmaps';
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** JSON text of an object whose keys are KEYS, each set to `value` (JSON.stringify of a literal would lose __proto__). */
const dataJSON = (value: string) => `{${KEYS.map((k) => `"${k}":"${value}"`).join(',')}}`;
const cm = (name: string, value: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":${dataJSON(value)}}`;

interface Reply {
  code: number;
  text: string;
  body: { data?: Record<string, string>; message?: string; items?: { metadata: { name: string } }[] } & Record<string, unknown>;
}

describe('keys named like Object.prototype members', () => {
  let cc: RunningControlCenter;
  const send = async (method: string, url: string, body?: string, contentType = 'application/json'): Promise<Reply> => {
    const res = await fetch(cc.url + url, { method, headers: { authorization: `Bearer ${cc.adminToken}`, 'content-type': contentType }, body });
    const text = await res.text();
    return { code: res.status, text, body: JSON.parse(text) as Reply['body'] };
  };
  /** The data of a stored ConfigMap as JSON text (own keys only, in order). */
  const storedData = async (name: string) => {
    const r = await send('GET', `${CMS}/${name}`);
    expect(r.code).toBe(200);
    return JSON.stringify(JSON.parse(r.text).data);
  };

  beforeAll(async () => {
    cc = await startTestControlCenter({ crds: allCRDs, namespaces: ['keys'] });
  });
  afterAll(async () => {
    await cc?.close();
  });

  it('keeps them through create, update, merge patch and strategic merge patch', async () => {
    expect((await send('POST', CMS, cm('plain', 'a'))).code).toBe(201);
    expect(await storedData('plain')).toBe(dataJSON('a'));

    expect((await send('PATCH', `${CMS}/plain`, `{"data":${dataJSON('b')}}`, 'application/merge-patch+json')).code).toBe(200);
    expect(await storedData('plain')).toBe(dataJSON('b'));

    expect((await send('PATCH', `${CMS}/plain`, `{"data":${dataJSON('c')}}`, 'application/strategic-merge-patch+json')).code).toBe(200);
    expect(await storedData('plain')).toBe(dataJSON('c'));

    const cur = (await send('GET', `${CMS}/plain`)).text;
    const put = cur.replace(/"data":\{[^}]*\}/, `"data":${dataJSON('d')}`);
    expect((await send('PUT', `${CMS}/plain`, put)).code).toBe(200);
    expect(await storedData('plain')).toBe(dataJSON('d'));

    // Removing them by merge patch removes them.
    expect((await send('PATCH', `${CMS}/plain`, '{"data":{"__proto__":null,"constructor":null}}', 'application/merge-patch+json')).code).toBe(200);
    expect(await storedData('plain')).toBe('{"toString":"d","hasOwnProperty":"d","valueOf":"d"}');
  });

  it('keeps them through server-side apply, by one manager and then another', async () => {
    const apply = (manager: string, body: string, force = false) =>
      send('PATCH', `${CMS}/applied?fieldManager=${manager}${force ? '&force=true' : ''}`, body, 'application/apply-patch+yaml');
    expect((await apply('one', cm('applied', 'e'))).code).toBe(201);
    expect(await storedData('applied')).toBe(dataJSON('e'));
    expect((await apply('one', cm('applied', 'f'))).code).toBe(200);
    expect(await storedData('applied')).toBe(dataJSON('f'));
    // A second manager takes two of the keys; the first manager's others stay.
    expect((await apply('two', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"constructor":"g","__proto__":"g"}}', true)).code).toBe(200);
    expect(JSON.parse(await storedData('applied'))).toEqual(JSON.parse('{"__proto__":"g","constructor":"g","toString":"f","hasOwnProperty":"f","valueOf":"f"}'));
    // The first manager dropping its keys removes only what it alone owns.
    expect((await apply('one', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"valueOf":"h"}}')).code).toBe(200);
    expect(JSON.parse(await storedData('applied'))).toEqual(JSON.parse('{"__proto__":"g","constructor":"g","valueOf":"h"}'));
  });

  it('keeps them in a Secret\'s stringData, folded into data', async () => {
    const secrets = '/api/v1/namespaces/keys/secrets';
    const r = await send('POST', secrets, '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"__proto__":"p","constructor":"c"},"data":{"toString":"dA=="}}');
    expect(r.code, r.text).toBe(201);
    const got = JSON.parse((await send('GET', `${secrets}/s`)).text) as { data: Record<string, string> };
    expect(JSON.stringify(got.data)).toBe('{"toString":"dA==","__proto__":"cA==","constructor":"Yw=="}');
  });

  it('answers a JSON patch of __proto__ with a clear 422 and changes nothing', async () => {
    const before = await storedData('plain');
    const r = await send('PATCH', `${CMS}/plain`, '[{"op":"add","path":"/data/__proto__","value":"x"}]', 'application/json-patch+json');
    expect(r.code).toBe(422);
    expect(r.body.message).toBe('the server rejected our request due to an error in our request: a JSON patch path may not pass through __proto__ or constructor/prototype');
    expect(await storedData('plain')).toBe(before);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses __proto__ as a label key from every write path, and selects on a constructor label', async () => {
    const labelled = (name: string, labels: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":${labels}}}`;
    const bad = '{"__proto__":"x","constructor":"x"}';
    for (const r of [
      await send('POST', CMS, labelled('bad-create', bad)),
      await send('PATCH', `${CMS}/bad-apply?fieldManager=m`, labelled('bad-apply', bad), 'application/apply-patch+yaml'),
      await send('PATCH', `${CMS}/plain`, `{"metadata":{"labels":${bad}}}`, 'application/merge-patch+json'),
    ]) {
      expect(r.code, r.text).toBe(422);
      expect(r.body.message).toContain('metadata.labels: Invalid value: "__proto__"');
    }
    expect((await send('POST', CMS, labelled('ctor', '{"constructor":"yes","toString":"t"}'))).code).toBe(201);
    const names = async (selector: string) => (await send('GET', `${CMS}?labelSelector=${encodeURIComponent(selector)}`)).body.items!.map((i) => i.metadata.name);
    expect(await names('constructor=yes')).toEqual(['ctor']);
    expect(await names('constructor')).toEqual(['ctor']);
    expect(await names('!toString')).toEqual(['applied', 'plain']);
  });
});
