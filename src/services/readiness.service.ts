import { errors } from '../errors.js';

/** How long the store may take to answer a readiness check; load balancers probe with 1–5 s timeouts. */
export const READINESS_TIMEOUT_MS = 2000;

/**
 * Whether this node should get traffic: it finished starting and its store answers now. A node
 * whose store cannot be reached (PostgreSQL down, cut off, or only a standby left to connect to)
 * can only answer 503, so a load balancer should send its requests elsewhere.
 */
export class ReadinessService {
  constructor(
    /** One round trip to the store; rejects when it cannot be reached. */
    private readonly ping: () => Promise<void>,
    private readonly timeoutMs = READINESS_TIMEOUT_MS,
  ) {}

  /** Resolves when ready; otherwise throws `service_unavailable` (503 with Retry-After). */
  async check(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      await Promise.race([this.ping(), late]);
    } catch (error) {
      throw errors.retrySoon('The database cannot be reached from this node', error);
    } finally {
      clearTimeout(timer);
    }
  }
}
