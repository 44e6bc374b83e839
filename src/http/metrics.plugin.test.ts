import type { FastifyReply, FastifyRequest } from 'fastify';
import { expect, test, vi } from 'vitest';
import { ResponseCountingLogController } from './metrics.plugin.js';

/** The parts of a finished request the controller reads: its route's counter, or the app's for 404s. */
function finished(options: { is404: boolean; countResponse?: () => void; countUnmatched?: () => void }) {
  const log = { info: vi.fn(), error: vi.fn() };
  const request = {
    is404: options.is404,
    routeOptions: { config: { countResponse: options.countResponse } },
    server: { countUnmatchedResponse: options.countUnmatched },
    log,
  } as unknown as FastifyRequest;
  const reply = { log, elapsedTime: 1, statusCode: 200 } as unknown as FastifyReply;
  return { request, reply, log };
}

test("a matched route's response is counted by its route's counter, an unmatched one by the app's", () => {
  const controller = new ResponseCountingLogController();
  const route = vi.fn();
  const unmatched = vi.fn();
  const matched = finished({ is404: false, countResponse: route, countUnmatched: unmatched });
  controller.requestCompleted(null, matched.request, matched.reply);
  expect(route).toHaveBeenCalledWith(matched.request, matched.reply);
  expect(unmatched).not.toHaveBeenCalled();

  const missing = finished({ is404: true, countResponse: route, countUnmatched: unmatched });
  controller.requestCompleted(null, missing.request, missing.reply);
  expect(unmatched).toHaveBeenCalledWith(missing.request, missing.reply);
  expect(route).toHaveBeenCalledTimes(1);
});

test('a counter that throws is logged, and the response is still logged as completed', () => {
  const controller = new ResponseCountingLogController();
  const failure = new Error('bad label');
  const { request, reply, log } = finished({
    is404: false,
    countResponse: () => {
      throw failure;
    },
  });
  expect(() => controller.requestCompleted(null, request, reply)).not.toThrow();
  expect(log.error).toHaveBeenCalledWith({ err: failure }, 'counting a response for the metrics failed');
  expect(log.info).toHaveBeenCalledWith(expect.objectContaining({ responseTime: 1 }), 'request completed');
});
