import { expect, test } from 'vitest';
import { loadConfig } from './config.js';

test('metrics are open by default', () => {
  expect(loadConfig({}, {}).metricsToken).toBeUndefined();
});

test('SEARCHPLANE_METRICS_TOKEN is taken as given', () => {
  expect(loadConfig({}, { SEARCHPLANE_METRICS_TOKEN: 's3cret-token' }).metricsToken).toBe('s3cret-token');
});
