/**
 * What a management API key may do. Each management route names the one action it needs; a key
 * holds a list of actions, where `*` is every action and `<group>.*` every action of a group.
 * No imports: the error table builds its per-action codes from this list.
 */
export const ACTIONS = [
  'indexes.read',
  'indexes.write',
  'indexes.delete',
  'indexes.transfer',
  'tokens.rotate',
  'stats.read',
  'messaging.read',
  'messaging.write',
  'keys.read',
  'keys.write',
  'keys.delete',
  'auditlogs.read',
] as const;
export type Action = (typeof ACTIONS)[number];

type Group<A extends string> = A extends `${infer G}.${string}` ? G : never;
/** What a key may be granted: an action, a group wildcard, or `*`. */
export type Grant = Action | `${Group<Action>}.*` | '*';

const GROUPS = [...new Set(ACTIONS.map((action) => action.split('.')[0]))];
export const GRANTS: readonly Grant[] = ['*', ...GROUPS.map((group) => `${group}.*` as Grant), ...ACTIONS];

type Underscored<S extends string> = S extends `${infer A}.${infer B}` ? `${A}_${Underscored<B>}` : S;
/** The 403 code of a key that lacks `action`, e.g. `missing_action_indexes_read`. */
export type MissingActionCode = `missing_action_${Underscored<Action>}`;

export function missingActionCode(action: Action): MissingActionCode {
  return `missing_action_${action.replace('.', '_')}` as MissingActionCode;
}

/** Whether `grants` include `action`, directly or by a wildcard. */
export function grantsAction(grants: readonly string[], action: Action): boolean {
  const group = `${action.split('.')[0]}.*`;
  return grants.some((grant) => grant === '*' || grant === action || grant === group);
}

/** Every action that `grants` include, in the order of {@link ACTIONS}. */
export function expandGrants(grants: readonly string[]): Action[] {
  return ACTIONS.filter((action) => grantsAction(grants, action));
}
