import { expect, test } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({}, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

test('metrics are open by default', () => {
  expect(loadConfig({}, {}).metricsToken).toBeUndefined();
});

test('SEARCHPLANE_METRICS_TOKEN is taken as given', () => {
  expect(loadConfig({}, { SEARCHPLANE_METRICS_TOKEN: 's3cret-token' }).metricsToken).toBe('s3cret-token');
});

test('CORS is off by default', () => {
  expect(loadConfig({}, {}).corsOrigins).toEqual([]);
});

test('SEARCHPLANE_CORS_ORIGINS: origins are normalized the way browsers send Origin', () => {
  const { corsOrigins } = loadConfig(
    {},
    { SEARCHPLANE_CORS_ORIGINS: ' https://App.Example.com/ ,http://localhost:3000,https://a.example:443,, ' },
  );
  expect(corsOrigins).toEqual(['https://app.example.com', 'http://localhost:3000', 'https://a.example']);
  expect(loadConfig({}, { SEARCHPLANE_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
});

test('SEARCHPLANE_CORS_ORIGINS: every entry that is not an origin is reported', () => {
  const problems = problemsOf({
    SEARCHPLANE_CORS_ORIGINS:
      'app.example.com,https://a.example/path,ftp://files.example,https://ok.example,https://b.example?x=1',
  });
  expect(problems).toHaveLength(4);
  for (const entry of ['app.example.com', 'https://a.example/path', 'ftp://files.example', 'https://b.example?x=1']) {
    expect(problems.some((problem) => problem.includes(`"${entry}"`))).toBe(true);
  }
  expect(problemsOf({ SEARCHPLANE_CORS_ORIGINS: '*,https://a.example' })).toEqual([
    'SEARCHPLANE_CORS_ORIGINS: "*" cannot be combined with origins',
  ]);
});
