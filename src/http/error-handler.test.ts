import { describe, expect, it } from 'vitest';
import { toAppError } from './error-handler.js';

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '/data/indexes/x/index.sqlite'`), { code, syscall: 'open' });
}

describe('toAppError', () => {
  it.each(['EMFILE', 'ENFILE'])('answers a system out of file descriptors (%s) with 503 and Retry-After', (code) => {
    const error = toAppError(systemError(code));
    expect(error.status).toBe(503);
    expect(error.code).toBe('service_unavailable');
    expect(error.headers).toEqual({ 'retry-after': '1' });
    // The path stays in the log, out of the answer.
    expect(error.message).not.toContain('/data');
  });

  it('keeps other system errors internal, without their details', () => {
    const error = toAppError(systemError('EACCES'));
    expect(error.status).toBe(500);
    expect(error.code).toBe('internal_error');
    expect(error.message).toBe('Internal server error');
  });
});
