import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../errors.js';
import { checkRequestInput } from './input-guard.js';
import { setRequestIdHeader } from './request-id.js';

/** A plane's first check of each of its requests (the management API's: HTTP Basic). */
export type PlaneOnRequest = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by {@link setPlaneOnRequest} on the requests of a plane's routes; absent elsewhere. */
    planeOnRequest?: PlaneOnRequest;
  }
}

export const REQUEST_START_PLUGIN = 'searchplane-request-start';

export interface RequestStartOptions {
  /**
   * While this returns false (start-up not finished), every request is answered 503 with
   * Retry-After.
   */
  acceptingRequests?: () => boolean;
}

/**
 * The first hook of every request: its id on the response, the start-up gate, the checks of its
 * path and query, then the first check of the plane its route belongs to, where that plane set one
 * with {@link setPlaneOnRequest}: all in one hook. A second onRequest hook cost every management
 * request a run of Fastify's hook machinery, about 2% of a `GET /v2/search/{id}` (issue #11).
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
    const planeCheck = request.planeOnRequest;
    if (planeCheck !== undefined) return planeCheck(request, reply, done);
    done();
  });
}

export default fp(requestStart, { name: REQUEST_START_PLUGIN });

/**
 * Runs `check` on every request to the routes of `app`'s context (the plugin calling this) and of
 * the contexts nested in it, right after the app's own first checks and in the same hook. It is a
 * request decorator, so Fastify's encapsulation scopes it to that context and its children; a
 * plugin calling this must list {@link REQUEST_START_PLUGIN} among its dependencies, so that
 * Fastify refuses to start an app in which nothing would run the check. A context may have one
 * check: a nested plugin could otherwise replace its plane's (authentication) for its own routes,
 * where a second hook could only have added one.
 */
export function setPlaneOnRequest(app: FastifyInstance, check: PlaneOnRequest): void {
  if (app.hasRequestDecorator('planeOnRequest')) {
    throw new Error("this context's requests already have a plane check; a nested plugin may not replace it");
  }
  app.decorateRequest('planeOnRequest', check);
}
