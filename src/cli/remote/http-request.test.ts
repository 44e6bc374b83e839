import { describe, expect, test } from 'vitest';
import {
  describeHttpError,
  parseRetryAfter,
  type RawResponse,
  RemoteError,
  sendRequest,
  TIMEOUT_CODE,
} from './http-request.js';

const request = { method: 'GET', url: 'http://127.0.0.1:9/v2/search', headers: {}, timeoutMs: 5000 };

async function failure(transport: () => Promise<RawResponse>): Promise<RemoteError> {
  try {
    await sendRequest(transport, request);
  } catch (error) {
    if (error instanceof RemoteError) return error;
    throw error;
  }
  throw new Error('expected a RemoteError');
}

describe('sendRequest', () => {
  test('returns the JSON body of a 2xx answer', async () => {
    const response = await sendRequest(async () => ({ status: 200, headers: {}, text: '"OK"' }), request);
    expect(response).toEqual({ status: 200, body: 'OK' });
  });

  test.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ENOTFOUND', 'host not found'],
    ['ECONNRESET', 'connection reset'],
    [TIMEOUT_CODE, 'no answer within 5 s'],
  ])('%s is one line naming the server', async (code, reason) => {
    const error = await failure(async () => {
      throw Object.assign(new Error('x'), { code });
    });
    expect(error.kind).toBe('network');
    expect(error.message).toBe(`cannot reach http://127.0.0.1:9/: ${reason}`);
  });

  test('an error answer keeps its status and Retry-After', async () => {
    const error = await failure(async () => ({
      status: 429,
      headers: { 'retry-after': '2' },
      text: '{"error":"Too many writes per second","status":429}',
    }));
    expect(error).toMatchObject({ kind: 'http', status: 429, retryAfterMs: 2000 });
    expect(error.message).toBe('429 too many requests: Too many writes per second');
  });

  test('a 2xx answer that is not JSON says the URL may not be a searchplane server', async () => {
    const error = await failure(async () => ({
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<html>',
    }));
    expect(error.message).toMatch(/not JSON: 200, text\/html.*--url/);
  });
});

describe('describeHttpError', () => {
  test('management errors show their code and details', () => {
    const body = {
      error: 'Invalid body',
      code: 'invalid_request',
      details: [
        { field: 'region', message: 'must be one of the allowed values', allowed: ['eu-west-1', 'us-central1'] },
      ],
    };
    expect(describeHttpError(400, body, '')).toBe(
      '400 invalid_request: Invalid body [region: must be one of the allowed values (eu-west-1, us-central1)]',
    );
  });

  test('data-plane errors show the reason phrase; bodies that are not JSON are shown on one line', () => {
    expect(describeHttpError(401, { error: 'Unauthorized: Invalid auth token', status: 401 }, '')).toBe(
      '401 unauthorized: Unauthorized: Invalid auth token',
    );
    expect(describeHttpError(502, undefined, '<h1>Bad\n  gateway</h1>')).toBe('502 bad gateway: <h1>Bad gateway</h1>');
  });
});

describe('parseRetryAfter', () => {
  test('seconds, an HTTP date, or nothing', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
