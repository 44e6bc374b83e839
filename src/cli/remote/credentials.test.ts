import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { UsageError } from '../cli-support.js';
import {
  credentialsPath,
  mergeCredentials,
  normalizeUrl,
  readCredentialsFile,
  removeCredentialsFile,
  requireTarget,
  writeCredentialsFile,
} from './credentials.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-credentials-'));
  dirs.push(dir);
  return dir;
}

describe('credentials file', () => {
  test('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(credentialsPath({ XDG_CONFIG_HOME: '/x/config', HOME: '/home/u' })).toBe(
      '/x/config/searchplane/credentials.json',
    );
    expect(credentialsPath({ HOME: '/home/u' })).toBe('/home/u/.config/searchplane/credentials.json');
  });

  test('is written with mode 0600 (also when it existed with a wider mode), read back, and removed', () => {
    const file = credentialsPath({ XDG_CONFIG_HOME: tempDir() });
    writeCredentialsFile(file, { url: 'http://a', email: 'e@x', apiKey: 'k1' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    writeFileSync(file, '{}', { mode: 0o644 });
    writeCredentialsFile(file, { url: 'http://b', email: 'e@x', apiKey: 'k2' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: 'http://b', email: 'e@x', api_key: 'k2' });
    expect(readCredentialsFile(file)).toEqual({ url: 'http://b', email: 'e@x', apiKey: 'k2' });
    expect(removeCredentialsFile(file)).toBe(true);
    expect(removeCredentialsFile(file)).toBe(false);
    expect(readCredentialsFile(file)).toEqual({});
  });

  test('a file that is not JSON is a usage error that says how to fix it', () => {
    const file = path.join(tempDir(), 'credentials.json');
    writeFileSync(file, 'not json');
    expect(() => readCredentialsFile(file)).toThrow(UsageError);
    expect(() => readCredentialsFile(file)).toThrow(/searchplane login/);
  });

  test.each([
    ['null', 'null'],
    ['a number', '42'],
    ['an array', '[]'],
  ])('a file holding %s is the same usage error as bad JSON', (_name, text) => {
    const file = path.join(tempDir(), 'credentials.json');
    writeFileSync(file, text);
    expect(() => readCredentialsFile(file)).toThrow(UsageError);
    expect(() => readCredentialsFile(file)).toThrow(/is not valid JSON: run `searchplane login`/);
  });

  test('a directory in its place is a usage error naming the file', () => {
    const file = path.join(tempDir(), 'credentials.json');
    mkdirSync(file);
    expect(() => readCredentialsFile(file)).toThrow(UsageError);
    expect(() => readCredentialsFile(file)).toThrow(/cannot read .*credentials\.json \(EISDIR\)/);
  });
});

describe('mergeCredentials', () => {
  const file = { url: 'http://file', email: 'file@x', apiKey: 'file-key' };
  const env = { SEARCHPLANE_URL: 'http://env', SEARCHPLANE_EMAIL: 'env@x', SEARCHPLANE_API_KEY: 'env-key' };

  test('flags win over the environment, which wins over the login file, part by part', () => {
    expect(mergeCredentials({}, {}, () => file)).toEqual(file);
    expect(mergeCredentials({}, env, () => file)).toEqual({ url: 'http://env', email: 'env@x', apiKey: 'env-key' });
    expect(mergeCredentials({ apiKey: 'flag-key' }, { SEARCHPLANE_URL: 'http://env' }, () => file)).toEqual({
      url: 'http://env',
      email: 'file@x',
      apiKey: 'flag-key',
    });
  });

  test('the login file is read only for the parts flags and environment leave out', () => {
    const broken = () => {
      throw new UsageError('broken login file');
    };
    expect(mergeCredentials({ url: 'http://f', email: 'f@x', apiKey: 'k' }, {}, broken)).toEqual({
      url: 'http://f',
      email: 'f@x',
      apiKey: 'k',
    });
    expect(mergeCredentials({ url: 'http://f' }, env, broken).apiKey).toBe('env-key');
    expect(() => mergeCredentials({ url: 'http://f' }, {}, broken)).toThrow(/broken login file/);
  });

  test('empty environment variables do not count', () => {
    expect(mergeCredentials({}, { SEARCHPLANE_URL: '' }, () => file).url).toBe('http://file');
  });
});

describe('requireTarget and normalizeUrl', () => {
  test('names every missing part', () => {
    expect(() => requireTarget({ url: 'http://a' })).toThrow(
      /--email \(SEARCHPLANE_EMAIL\), --key \(SEARCHPLANE_API_KEY\)/,
    );
  });

  test('trims trailing slashes and refuses other schemes', () => {
    expect(requireTarget({ url: 'http://h:8080/base//', email: 'e', apiKey: 'k' }).url).toBe('http://h:8080/base');
    expect(normalizeUrl('https://h/')).toBe('https://h');
    expect(() => normalizeUrl('ftp://h')).toThrow(UsageError);
    expect(() => normalizeUrl('localhost:8080x')).toThrow(UsageError);
  });
});
