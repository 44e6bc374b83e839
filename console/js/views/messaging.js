import { ApiError } from '../api.js';
import { busy, h, notice, replaceChildren } from '../dom.js';
import { formatDate } from '../format.js';
import { toast } from '../toast.js';

/** `#/messaging`: the account's messaging instances and their production pack. */
export async function renderMessaging({ main, api, signal }) {
  const status = h('div', { class: 'form-status' });
  const listArea = h('div', { class: 'list-area' });
  const reload = async () => replaceChildren(listArea, instanceTable(await api.get('/messaging/users', signal)));

  const instanceTable = (instances) => {
    if (instances.length === 0) return h('p', { class: 'empty' }, 'This account has no messaging instances.');
    return h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'data-table messaging-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Region', 'Plan', 'State', 'Created', 'Production pack', 'Action'].map((text) =>
              h('th', { scope: 'col' }, text),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          instances.map((instance) => instanceRow(instance)),
        ),
      ),
    );
  };

  const instanceRow = (instance) => {
    const enable = !instance.prod_pack_enabled;
    const label = `${enable ? 'Enable' : 'Disable'} production pack`;
    const button = h(
      'button',
      {
        type: 'button',
        class: enable ? 'primary small' : 'secondary small',
        'aria-label': `${label} in ${instance.region}`,
      },
      label,
    );
    button.addEventListener('click', () =>
      busy(button, async () => {
        replaceChildren(status);
        try {
          await api.post(`/messaging/${enable ? 'enable' : 'disable'}-prodpack/${instance.id}`);
          toast(`Production pack ${enable ? 'enabled' : 'disabled'} in ${instance.region}`);
          await reload();
          listArea.querySelector(`tr[data-instance-id="${instance.id}"] button`)?.focus();
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          replaceChildren(status, notice('error', `${instance.region}: ${error.message}`));
        }
      }),
    );
    return h(
      'tr',
      { 'data-instance-id': instance.id },
      h('td', { 'data-label': 'Region', class: 'strong' }, instance.region),
      h('td', { 'data-label': 'Plan' }, h('span', { class: `badge plan-${instance.type}` }, instance.type)),
      h('td', { 'data-label': 'State' }, instance.state),
      h('td', { 'data-label': 'Created' }, formatDate(instance.creation_time)),
      h(
        'td',
        { 'data-label': 'Production pack' },
        h(
          'span',
          { class: `pill ${instance.prod_pack_enabled ? 'on' : 'off'}` },
          instance.prod_pack_enabled ? 'Enabled' : 'Disabled',
        ),
      ),
      h('td', { 'data-label': 'Action' }, button),
    );
  };

  replaceChildren(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabindex: '-1' }, 'Messaging instances'),
      h('p', { class: 'lead' }, 'One instance per region. The production pack needs the paid plan.'),
    ),
    status,
    listArea,
  );
  await reload();
}
