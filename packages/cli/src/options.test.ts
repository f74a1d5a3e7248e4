import { describe, expect, it } from 'vitest';
import { existingFileArg, hostArg, numberArg, portArg, subjectAltNamesArg } from './options.js';

describe('numberArg', () => {
  const count = numberArg({ integer: true, min: 1 });
  const seconds = numberArg({ min: 0, exclusiveMin: true });

  it.each(['1', '42', '+7', '007'])('takes the count %j', (v) => {
    expect(count(v)).toBe(Number(v));
  });

  it.each(['0.5', '10', '2.', '.25'])('takes the seconds %j', (v) => {
    expect(seconds(v)).toBe(Number(v));
  });

  it.each(['', ' ', 'x', '1e3', '0x10', '1.5', '0', '-1', 'Infinity', 'NaN', ' 5', '5 ', '1_000'])('refuses the count %j, quoting it', (v) => {
    expect(() => count(v)).toThrow(`must be an integer >= 1, got "${v}"`);
  });

  it.each(['0', '-0.5', '1e-3', '.', 'soon', '1e400'])('refuses the seconds %j', (v) => {
    expect(() => seconds(v)).toThrow('must be a number > 0');
  });

  it('bounds ports to 0..65535', () => {
    expect(portArg('0')).toBe(0);
    expect(portArg('65535')).toBe(65535);
    expect(() => portArg('65536')).toThrow('must be an integer >= 0 and <= 65535, got "65536"');
  });
});

describe('hostArg, subjectAltNamesArg, existingFileArg', () => {
  it.each(['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'cc.example.com', 'My-Host'])('takes the host %j', (h) => {
    expect(hostArg(h)).toBe(h);
  });
  it.each(['999.1.1.1', '1.2.3', '', 'bad name', 'a_b', '-x', 'http://x'])('refuses the host %j', (h) => {
    expect(() => hostArg(h)).toThrow(`must be an IP address or a host name, got "${h}"`);
  });
  it('takes IPs and DNS names (with a wildcard) for the certificate, and names the first bad one', () => {
    expect(subjectAltNamesArg('1.2.3.4, *.example.com,cc.local,,fd00::1')).toEqual(['1.2.3.4', '*.example.com', 'cc.local', 'fd00::1']);
    expect(() => subjectAltNamesArg('ok.example.com,bad name!')).toThrow('"bad name!" is neither');
    expect(() => subjectAltNamesArg('300.1.1.1')).toThrow('"300.1.1.1" is neither');
  });
  it('wants a file that exists', () => {
    expect(existingFileArg(import.meta.filename)).toBe(import.meta.filename);
    expect(() => existingFileArg('/nonexistent/tokens.csv')).toThrow('no such file "/nonexistent/tokens.csv"');
    expect(() => existingFileArg(import.meta.dirname)).toThrow('is not a readable file');
  });
});
