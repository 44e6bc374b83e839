import { Command } from 'commander';
import type { MessagingInstanceRecord } from '../../../services/messaging.service.js';
import { printJson } from '../../cli-support.js';
import { formatFields, formatTable, formatTime, printText } from '../output.js';
import { addRemoteOptions, connect } from '../remote-context.js';

interface JsonFlag {
  json?: boolean;
}

function messagingCommand(messaging: Command, usage: string, description: string): Command {
  return addRemoteOptions(messaging.command(usage).description(description)).option('--json', 'print JSON');
}

/** `searchplane messaging list|get|enable-prodpack|disable-prodpack|set-plan`. */
export function messagingCommands(): Command {
  const messaging = new Command('messaging').description("the account's messaging instances (over the network)");

  messagingCommand(messaging, 'list', 'list messaging instances (one per region)').action(
    async (flags: JsonFlag, command: Command) => {
      const instances = await connect(command).get<MessagingInstanceRecord[]>('/messaging/users');
      if (flags.json) return printJson(instances);
      const rows = instances.map((instance) => [
        instance.id,
        instance.region,
        instance.type,
        instance.prod_pack_enabled ? 'on' : 'off',
        instance.state,
      ]);
      printText(formatTable(['ID', 'REGION', 'PLAN', 'PROD PACK', 'STATE'], rows));
    },
  );

  messagingCommand(messaging, 'get <id>', 'show a messaging instance with its tokens').action(
    async (id: string, flags: JsonFlag, command: Command) => {
      const instance = await connect(command).get<MessagingInstanceRecord>(`/messaging/user/${encodeURIComponent(id)}`);
      if (flags.json) return printJson(instance);
      printText(
        formatFields([
          ['id', instance.id],
          ['region', instance.region],
          ['plan', instance.type],
          ['production pack', instance.prod_pack_enabled ? 'on' : 'off'],
          ['active', instance.active ? 'yes' : 'no'],
          ['state', instance.state],
          ['token', instance.token],
          ['read-only token', instance.read_only_token],
          ['created', formatTime(instance.creation_time)],
        ]),
      );
    },
  );

  for (const [action, state] of [
    ['enable', 'on'],
    ['disable', 'off'],
  ] as const) {
    messagingCommand(messaging, `${action}-prodpack <id>`, `turn the production pack ${state}`).action(
      async (id: string, flags: JsonFlag, command: Command) => {
        await connect(command).post(`/messaging/${action}-prodpack/${encodeURIComponent(id)}`);
        if (flags.json) printJson({ id, prod_pack_enabled: state === 'on' });
        else printText(`production pack ${state} for messaging instance ${id}`);
      },
    );
  }

  messagingCommand(messaging, 'set-plan <id> <plan>', 'change the plan: free or paid (free turns the pack off)').action(
    async (id: string, plan: string, flags: JsonFlag, command: Command) => {
      await connect(command).post(`/messaging/set-plan/${encodeURIComponent(id)}`, { plan_name: plan });
      if (flags.json) printJson({ id, type: plan });
      else printText(`messaging instance ${id} is now on the ${plan} plan`);
    },
  );

  return messaging;
}
