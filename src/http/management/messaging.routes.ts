import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../services/index.js';
import { managementErrors, OkSchema, sendOk, UuidParams } from '../schemas/common.schemas.js';
import { SetPlanBody } from '../schemas/management.schemas.js';

const tags = ['messaging'];
const MessagingInstance = Type.Ref('MessagingInstance');

/** `/v2/messaging/...`: the account's messaging instances and their production pack. */
export const messagingRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { messaging } = services;

  app.get(
    '/messaging/users',
    {
      config: { access: { action: 'messaging.read' } },
      schema: {
        tags,
        operationId: 'listMessagingInstances',
        summary: "List the account's messaging instances (one per region)",
        response: { 200: Type.Array(MessagingInstance), ...managementErrors() },
      },
    },
    (request) => messaging.list(request.accountEmail),
  );

  app.get(
    '/messaging/user/:id',
    {
      config: { access: { action: 'messaging.read' } },
      schema: {
        tags,
        operationId: 'getMessagingInstance',
        summary: 'Get a messaging instance',
        params: UuidParams,
        response: { 200: MessagingInstance, ...managementErrors(404) },
      },
    },
    (request) => messaging.get(request.accountEmail, request.params.id),
  );

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(
      `/messaging/${action}-prodpack/:id`,
      {
        config: { access: { action: 'messaging.write' }, audit: { action: `messaging.${action}_prodpack` } },
        schema: {
          tags,
          operationId: `${action}MessagingProdPack`,
          summary: `${enabled ? 'Enable' : 'Disable'} the production pack (idempotent${enabled ? '; paid plan only' : ''})`,
          params: UuidParams,
          response: { 200: OkSchema, ...managementErrors(...(enabled ? [400, 404] : [404])) },
        },
      },
      async (request, reply) => {
        await messaging.setProdPack(request.accountEmail, request.params.id, enabled);
        return sendOk(reply);
      },
    );
  }

  app.post(
    '/messaging/set-plan/:id',
    {
      config: { access: { action: 'messaging.write' }, audit: { action: 'messaging.set_plan' } },
      schema: {
        tags,
        operationId: 'setMessagingPlan',
        summary: 'Change the plan of a messaging instance',
        params: UuidParams,
        body: SetPlanBody,
        response: { 200: OkSchema, ...managementErrors(400, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      await messaging.setPlan(request.accountEmail, request.params.id, request.body.plan_name);
      return sendOk(reply);
    },
  );
};
