import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, fastifyTrustProxy, loadConfig } from './config.js';

describe('loadConfig', () => {
  test('defaults', () => {
    const config = loadConfig({}, {});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: path.resolve('./data'),
      logLevel: 'info',
      freeIndexLimit: 1,
      messagingDefaultPlan: 'paid',
      authFailureLimit: 20,
      bodyLimitBytes: 1_048_576,
      embeddings: { provider: 'builtin' },
    });
    expect(config.databaseUrl).toBeUndefined();
  });

  test('flags win over environment', () => {
    const config = loadConfig({ port: '9000', host: '0.0.0.0' }, { PORT: '7000', HOST: '10.0.0.1' });
    expect(config.port).toBe(9000);
    expect(config.host).toBe('0.0.0.0');
  });

  test('reports every bad key at once', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig(
        {},
        {
          PORT: 'eighty',
          DATABASE_URL: 'mysql://x',
          LOG_LEVEL: 'loud',
          SEARCHPLANE_ADMIN_EMAIL: 'a@b.c',
          SEARCHPLANE_EMBEDDINGS_PROVIDER: 'openai',
        },
      );
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.problems).toHaveLength(5);
    expect(error?.message).toMatch(/PORT/);
    expect(error?.message).toMatch(/DATABASE_URL/);
    expect(error?.message).toMatch(/LOG_LEVEL/);
    expect(error?.message).toMatch(/SEARCHPLANE_ADMIN_API_KEY/);
    expect(error?.message).toMatch(/SEARCHPLANE_EMBEDDINGS_URL is required/);
  });

  test('reads the plans file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plans-'));
    const file = path.join(dir, 'plans.json');
    writeFileSync(file, JSON.stringify({ fixed: { available: true } }));
    expect(loadConfig({ plansFile: file }, {}).plans.fixed.available).toBe(true);
    writeFileSync(file, '{ nope');
    expect(() => loadConfig({ plansFile: file }, {})).toThrow(ConfigError);
  });

  test('HNSW parameters are optional integers within bounds', () => {
    expect(loadConfig({}, {}).hnsw).toEqual({ m: undefined, efConstruction: undefined, efSearch: undefined });
    expect(
      loadConfig(
        {},
        { SEARCHPLANE_HNSW_M: '16', SEARCHPLANE_HNSW_EF_CONSTRUCTION: '100', SEARCHPLANE_HNSW_EF_SEARCH: '512' },
      ).hnsw,
    ).toEqual({ m: 16, efConstruction: 100, efSearch: 512 });
    expect(() => loadConfig({}, { SEARCHPLANE_HNSW_M: '2' })).toThrow(/SEARCHPLANE_HNSW_M/);
  });

  test('SEARCHPLANE_READ_BUFFER_MB (256 MiB, whole MiB from 1) and SEARCHPLANE_READ_ANSWER_TIMEOUT_MS (60 s)', () => {
    expect(loadConfig({}, {}).readBufferBytes).toBe(256 * 1_048_576);
    expect(loadConfig({}, { SEARCHPLANE_READ_BUFFER_MB: '4' }).readBufferBytes).toBe(4 * 1_048_576);
    expect(() => loadConfig({}, { SEARCHPLANE_READ_BUFFER_MB: '0' })).toThrow(/SEARCHPLANE_READ_BUFFER_MB/);
    expect(() => loadConfig({}, { SEARCHPLANE_READ_BUFFER_MB: '1.5' })).toThrow(/SEARCHPLANE_READ_BUFFER_MB/);
    expect(loadConfig({}, {}).readAnswerTimeoutMs).toBe(60_000);
    expect(loadConfig({}, { SEARCHPLANE_READ_ANSWER_TIMEOUT_MS: '5000' }).readAnswerTimeoutMs).toBe(5000);
    expect(() => loadConfig({}, { SEARCHPLANE_READ_ANSWER_TIMEOUT_MS: '10' })).toThrow(
      /SEARCHPLANE_READ_ANSWER_TIMEOUT_MS/,
    );
  });

  test('SEARCHPLANE_AUDIT_RETENTION_DAYS: 90 by default, whole days from 1', () => {
    expect(loadConfig({}, {}).auditRetentionDays).toBe(90);
    expect(loadConfig({}, { SEARCHPLANE_AUDIT_RETENTION_DAYS: '7' }).auditRetentionDays).toBe(7);
    for (const bad of ['0', '1.5', 'week']) {
      expect(() => loadConfig({}, { SEARCHPLANE_AUDIT_RETENTION_DAYS: bad })).toThrow(
        /SEARCHPLANE_AUDIT_RETENTION_DAYS/,
      );
    }
  });

  test('an embeddings URL selects the openai provider', () => {
    expect(loadConfig({}, { SEARCHPLANE_EMBEDDINGS_URL: 'http://127.0.0.1:11434' }).embeddings.provider).toBe('openai');
  });

  describe('onnx embeddings', () => {
    test('defaults: 256 tokens, quantized, a cache directory under the data dir', () => {
      const config = loadConfig(
        { dataDir: '/srv/searchplane' },
        { SEARCHPLANE_EMBEDDINGS_PROVIDER: 'onnx', SEARCHPLANE_EMBEDDINGS_MODEL: '/models/all-MiniLM-L6-v2' },
      );
      expect(config.embeddings).toMatchObject({
        provider: 'onnx',
        model: '/models/all-MiniLM-L6-v2',
        cacheDir: path.resolve('/srv/searchplane/models'),
        maxTokens: 256,
        quantized: true,
        pooling: 'mean',
        batchSize: 64,
      });
    });

    test('reads every setting', () => {
      const config = loadConfig(
        {},
        {
          SEARCHPLANE_EMBEDDINGS_PROVIDER: 'onnx',
          SEARCHPLANE_EMBEDDINGS_MODEL: 'Xenova/bge-small-en-v1.5',
          SEARCHPLANE_EMBEDDINGS_CACHE_DIR: 'model-cache',
          SEARCHPLANE_EMBEDDINGS_MAX_TOKENS: '128',
          SEARCHPLANE_EMBEDDINGS_QUANTIZED: 'false',
          SEARCHPLANE_EMBEDDINGS_POOLING: 'cls',
          SEARCHPLANE_EMBEDDINGS_BATCH_SIZE: '8',
        },
      );
      expect(config.embeddings).toMatchObject({
        model: 'Xenova/bge-small-en-v1.5',
        cacheDir: path.resolve('model-cache'),
        maxTokens: 128,
        quantized: false,
        pooling: 'cls',
        batchSize: 8,
      });
    });

    test('lists every bad onnx setting at once', () => {
      let error: ConfigError | undefined;
      try {
        loadConfig(
          {},
          {
            SEARCHPLANE_EMBEDDINGS_PROVIDER: 'onnx',
            SEARCHPLANE_EMBEDDINGS_MAX_TOKENS: '4',
            SEARCHPLANE_EMBEDDINGS_QUANTIZED: 'maybe',
            SEARCHPLANE_EMBEDDINGS_POOLING: 'max',
            SEARCHPLANE_EMBEDDINGS_DIMENSIONS: '384',
            SEARCHPLANE_EMBEDDINGS_BATCH_SIZE: '0',
          },
        );
      } catch (caught) {
        error = caught as ConfigError;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const keys = error?.problems.map((problem) => problem.split(' ')[0]).sort();
      expect(keys).toEqual([
        'SEARCHPLANE_EMBEDDINGS_BATCH_SIZE',
        'SEARCHPLANE_EMBEDDINGS_DIMENSIONS',
        'SEARCHPLANE_EMBEDDINGS_MAX_TOKENS',
        'SEARCHPLANE_EMBEDDINGS_MODEL',
        'SEARCHPLANE_EMBEDDINGS_POOLING',
        'SEARCHPLANE_EMBEDDINGS_QUANTIZED',
      ]);
    });
  });

  test('SEARCHPLANE_TRUST_PROXY: false by default, true, a hop count or proxy addresses and ranges', () => {
    const trust = (value?: string) =>
      loadConfig({}, value === undefined ? {} : { SEARCHPLANE_TRUST_PROXY: value }).trustProxy;
    expect(trust()).toBe(false);
    expect(trust('false')).toBe(false);
    expect(trust('TRUE')).toBe(true);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.1, 192.168.0.0/16,::1,fd00::/8,loopback')).toEqual([
      '10.0.0.1',
      '192.168.0.0/16',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.1/8/1', 'proxy.example.com', ',', '::1/129']) {
      expect(() => trust(bad), bad).toThrow(/SEARCHPLANE_TRUST_PROXY/);
    }
  });

  test('a hop count trusts that many addresses from the socket, which Fastify no longer does by itself', () => {
    const trusted = fastifyTrustProxy(2) as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => trusted('10.0.0.1', hop))).toEqual([true, true, false]);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
    expect(fastifyTrustProxy(false)).toBe(false);
  });
});
