import { describe, expect, it } from 'vitest';
import { HostList, parsePostgresUrl } from './pg-hosts.js';

describe('parsePostgresUrl', () => {
  it('takes one host as it is, without checking that it takes writes', () => {
    expect(parsePostgresUrl('postgres://u:p@db:5433/app?sslmode=disable')).toEqual({
      hosts: ['postgres://u:p@db:5433/app?sslmode=disable'],
      options: undefined,
      readWrite: false,
    });
  });

  it('splits several hosts into one URL each, keeping credentials, database and parameters', () => {
    const url = parsePostgresUrl(
      'postgresql://u:p%40ss@a:5432,b,[::1]:5434/app?target_session_attrs=read-write&options=-c%20search_path%3Ds&application_name=x',
    );
    expect(url.hosts).toEqual([
      'postgresql://u:p%40ss@a:5432/app?application_name=x',
      'postgresql://u:p%40ss@b/app?application_name=x',
      'postgresql://u:p%40ss@[::1]:5434/app?application_name=x',
    ]);
    expect(url.options).toBe('-c search_path=s');
    expect(url.readWrite).toBe(true);
  });

  it('asks for a writable host whenever several are named, unless told any will do', () => {
    expect(parsePostgresUrl('postgres://a,b/db').readWrite).toBe(true);
    expect(parsePostgresUrl('postgres://a,b/db?target_session_attrs=any').readWrite).toBe(false);
    expect(parsePostgresUrl('postgres://a/db?target_session_attrs=primary').readWrite).toBe(true);
  });

  it.each([
    ['mysql://a/db', /postgres:\/\//],
    ['postgres://a,,b/db', /empty host/],
    ['postgres://a:notaport,b/db', /Invalid URL/],
    ['postgres://a,b/db?target_session_attrs=standby', /target_session_attrs/],
  ])('refuses %s', (raw, reason) => {
    expect(() => parsePostgresUrl(raw)).toThrow(reason);
  });
});

describe('HostList', () => {
  it('moves to the next host when the current one fails, once however many connections report it', () => {
    const hosts = new HostList(parsePostgresUrl('postgres://a,b,c/db'));
    const first = hosts.connectionString();
    expect(first).toBe('postgres://a/db');
    hosts.failed(first);
    hosts.failed(first);
    expect(hosts.connectionString()).toBe('postgres://b/db');
    hosts.failed('postgres://b/db');
    hosts.failed('postgres://c/db');
    expect(hosts.connectionString()).toBe('postgres://a/db');
  });
});
