import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type IdempotencyClaim, IdempotencyService } from '../../services/idempotency.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: IdempotencyClaim;
  }
  interface FastifyContextConfig {
    /** The route honours `Idempotency-Key` (see IdempotencyService). */
    idempotent?: boolean;
  }
}

/** The `Idempotency-Key` request header of an idempotent route, validated and documented. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Any printable ASCII (e.g. a UUID): a retry with the same key and body within 24 hours answers the first answer again',
    }),
  ),
});

/**
 * Hooks of the management context for routes whose config says `idempotent`: after validation,
 * a key seen before is answered from the store (or refused); a new one is claimed, and the
 * route's answer completes the claim before it is sent, so a retry that follows sees it.
 */
export function registerIdempotency(app: FastifyInstance, service: IdempotencyService): void {
  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (!request.routeOptions.config.idempotent || typeof key !== 'string') return;
    const fingerprint = IdempotencyService.fingerprint(
      request.method,
      request.routeOptions.url ?? '',
      request.params,
      request.body,
    );
    const start = await service.begin(request.accountEmail, key, fingerprint);
    if ('claim' in start) {
      request.idempotencyClaim = start.claim;
      return;
    }
    return reply
      .code(start.replay.status)
      .type('application/json; charset=utf-8')
      .header('idempotent-replayed', 'true')
      .send(start.replay.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (claim === undefined) return payload;
    request.idempotencyClaim = undefined;
    try {
      await service.complete(claim, reply.statusCode, String(payload));
    } catch (error) {
      // The answer stands; a retry with the key may be told it is still in progress.
      request.log.error({ err: error }, 'could not keep the answer of an Idempotency-Key');
    }
    return payload;
  });
}
