/**
 * Per-plan quotas, the single source for the `max_*` fields of a new index. A JSON plans
 * file may override any field of any plan and may make `fixed` available.
 */
export const PLAN_NAMES = ['free', 'payg', 'fixed'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export const QUOTA_FIELDS = [
  'max_vector_count',
  'max_monthly_reranks',
  'max_daily_updates',
  'max_daily_queries',
  'max_monthly_bandwidth',
  'max_writes_per_second',
  'max_query_per_second',
  'max_reads_per_request',
  'max_writes_per_request',
] as const;
export type QuotaField = (typeof QUOTA_FIELDS)[number];
export type Quotas = Record<QuotaField, number>;

export interface Plan extends Quotas {
  /** Whether new indexes may be created on this plan. */
  available: boolean;
}
export type PlanTable = Record<PlanName, Plan>;

const UNLIMITED = -1;

export const DEFAULT_PLANS: PlanTable = {
  free: {
    available: true,
    max_vector_count: 200_000,
    max_monthly_reranks: 1000,
    max_daily_updates: 10_000,
    max_daily_queries: 10_000,
    max_monthly_bandwidth: 10 * 1024 ** 3,
    max_writes_per_second: 100,
    max_query_per_second: 100,
    max_reads_per_request: 100,
    max_writes_per_request: 100,
  },
  payg: {
    available: true,
    max_vector_count: 2_000_000,
    max_monthly_reranks: UNLIMITED,
    max_daily_updates: UNLIMITED,
    max_daily_queries: UNLIMITED,
    max_monthly_bandwidth: UNLIMITED,
    max_writes_per_second: 1000,
    max_query_per_second: 1000,
    max_reads_per_request: 1000,
    max_writes_per_request: 1000,
  },
  // The spec lists `fixed` but says only free and payg are available; a plans file can enable it.
  fixed: {
    available: false,
    max_vector_count: 10_000_000,
    max_monthly_reranks: UNLIMITED,
    max_daily_updates: UNLIMITED,
    max_daily_queries: UNLIMITED,
    max_monthly_bandwidth: UNLIMITED,
    max_writes_per_second: 1000,
    max_query_per_second: 1000,
    max_reads_per_request: 1000,
    max_writes_per_request: 1000,
  },
};

/**
 * Applies a parsed plans file over the defaults. Throws with every problem listed when the
 * file names an unknown plan or field or holds a value that is not an integer ≥ -1.
 */
export function mergePlans(overrides: unknown): PlanTable {
  const table = structuredClone(DEFAULT_PLANS);
  if (overrides === undefined) return table;
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new Error('must be a JSON object of plan name → quotas');
  }
  const problems: string[] = [];
  for (const [planName, fields] of Object.entries(overrides)) {
    if (!(PLAN_NAMES as readonly string[]).includes(planName)) {
      problems.push(`unknown plan "${planName}" (plans: ${PLAN_NAMES.join(', ')})`);
      continue;
    }
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      problems.push(`plan "${planName}" must be an object`);
      continue;
    }
    const plan = table[planName as PlanName];
    for (const [field, value] of Object.entries(fields)) {
      if (field === 'available') {
        if (typeof value !== 'boolean') problems.push(`${planName}.available must be a boolean`);
        else plan.available = value;
      } else if ((QUOTA_FIELDS as readonly string[]).includes(field)) {
        if (!Number.isSafeInteger(value) || (value as number) < UNLIMITED) {
          problems.push(`${planName}.${field} must be an integer ≥ -1`);
        } else plan[field as QuotaField] = value as number;
      } else {
        problems.push(`unknown field "${planName}.${field}"`);
      }
    }
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  return table;
}

export function quotasOf(plan: Plan): Quotas {
  const quotas = {} as Quotas;
  for (const field of QUOTA_FIELDS) quotas[field] = plan[field];
  return quotas;
}
