import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../errors.js';
import { checkRequestInput } from './input-guard.js';
import { setRequestIdHeader } from './request-id.js';

export interface RequestStartOptions {
  /**
   * While this returns false (start-up not finished), every request is answered 503 with
   * Retry-After.
   */
  acceptingRequests?: () => boolean;
}

/**
 * The app's first `onRequest` hook, so that it runs before the planes' own (authentication): the
 * request id on the response, the start-up gate, then the checks of the path and query.
 */
async function requestStart(app: FastifyInstance, { acceptingRequests }: RequestStartOptions): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    setRequestIdHeader(request, reply);
    if (acceptingRequests !== undefined && !acceptingRequests()) {
      return done(errors.retrySoon('searchplane is starting; try again in a moment'));
    }
    try {
      checkRequestInput(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}

export default fp(requestStart, { name: 'searchplane-request-start' });
