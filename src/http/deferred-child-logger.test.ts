import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, test, vi } from 'vitest';
import { childLoggerFactoryFor, DeferredChildLogger, deferredChildLoggerFactory } from './deferred-child-logger.js';

/** A pino logger at `level` writing its lines into `lines`, parsed. */
function capturing(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('DeferredChildLogger', () => {
  test('makes no child while nothing is logged at an enabled level', () => {
    const { logger, lines } = capturing('warn');
    const child = vi.spyOn(logger, 'child');
    const deferred = new DeferredChildLogger(logger, { reqId: 'r-1' });
    deferred.info({ a: 1 }, 'not written');
    deferred.debug('nor this');
    expect(child).not.toHaveBeenCalled();
    expect(lines).toEqual([]);
    expect(deferred.level).toBe('warn');
  });

  test('writes what the child would, with its bindings, and makes the child once', () => {
    const { logger, lines } = capturing('info');
    const child = vi.spyOn(logger, 'child');
    const deferred = new DeferredChildLogger(logger, { reqId: 'r-2' });
    deferred.info({ a: 1 }, 'first %s', 'line');
    deferred.error(new Error('boom'));
    deferred.warn('third');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toMatchObject([
      { level: 30, reqId: 'r-2', a: 1, msg: 'first line' },
      { level: 50, reqId: 'r-2', err: { message: 'boom' } },
      { level: 40, reqId: 'r-2', msg: 'third' },
    ]);
  });

  test('a level set on it applies to it alone', () => {
    const { logger, lines } = capturing('warn');
    const deferred = new DeferredChildLogger(logger, { reqId: 'r-3' });
    deferred.level = 'debug';
    deferred.debug('now written');
    logger.debug('not by the parent');
    expect(deferred.level).toBe('debug');
    expect(lines).toMatchObject([{ level: 20, reqId: 'r-3', msg: 'now written' }]);
  });

  test("answers pino's isLevelEnabled and bindings as the child would", () => {
    const { logger } = capturing('warn');
    const deferred = new DeferredChildLogger(logger, { reqId: 'r-5' });
    expect(deferred.isLevelEnabled('info')).toBe(false);
    expect(deferred.isLevelEnabled('error')).toBe(true);
    expect(deferred.bindings()).toEqual({ reqId: 'r-5' });
    deferred.level = 'info';
    expect(deferred.isLevelEnabled('info')).toBe(true);
  });

  test('its children carry its bindings and their own', () => {
    const { logger, lines } = capturing('info');
    new DeferredChildLogger(logger, { reqId: 'r-4' }).child({ part: 'x' }).info('nested');
    expect(lines).toMatchObject([{ reqId: 'r-4', part: 'x', msg: 'nested' }]);
  });
});

describe('as the Fastify child logger factory', () => {
  test('is used only at levels where Fastify does not log every request', () => {
    for (const level of ['trace', 'debug', 'info']) expect(childLoggerFactoryFor(level)).toBeUndefined();
    for (const level of ['warn', 'error', 'fatal', 'silent']) {
      expect(childLoggerFactoryFor(level)).toBe(deferredChildLoggerFactory);
    }
  });

  test("a request's log lines carry its id, and routes with log options of their own get a plain child", async () => {
    const { logger, lines } = capturing('info');
    const app = Fastify({
      loggerInstance: logger,
      childLoggerFactory: deferredChildLoggerFactory,
      disableRequestLogging: true,
    });
    app.get('/deferred', async (request) => {
      request.log.info('from the handler');
      return { deferred: request.log instanceof DeferredChildLogger };
    });
    app.get('/own-level', { logLevel: 'error' }, async (request) => {
      request.log.info('below the route level');
      return { deferred: request.log instanceof DeferredChildLogger };
    });
    const deferred = await app.inject({ url: '/deferred' });
    const ownLevel = await app.inject({ url: '/own-level' });
    expect(deferred.json()).toEqual({ deferred: true });
    expect(ownLevel.json()).toEqual({ deferred: false });
    expect(lines.filter((line) => line.msg === 'from the handler')).toMatchObject([{ reqId: expect.any(String) }]);
    expect(lines.some((line) => line.msg === 'below the route level')).toBe(false);
    await app.close();
  });
});
