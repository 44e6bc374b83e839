import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level } from 'pino';

/** A Fastify logger with pino's level test (what the app's logger, and its children, are). */
type LevelAwareLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/**
 * A request's logger (`request.log`), made into a pino child of the app's logger only when
 * something logs through it at an enabled level. Fastify makes a child for every request, and a
 * pino child (its bindings serialized, its prototype chain set up) costs about 0.35 µs, most of
 * what a request id costs; at `warn` and above most requests write no line at all (issue #11).
 * What it writes is exactly what the child would have written: same bindings, same options.
 */
export class DeferredChildLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAwareLogger,
    private readonly ownBindings: Bindings,
  ) {}

  /** The child logger itself, made on first use. */
  private child_(): FastifyBaseLogger {
    if (this.made === undefined) this.made = this.parent.child(this.ownBindings);
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.child_().level = level;
  }

  // Methods on the prototype, not closures per request.
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  /** pino's, as the child would answer. */
  isLevelEnabled(level: string): boolean {
    return ((this.made ?? this.parent) as LevelAwareLogger).isLevelEnabled(level);
  }

  /** pino's: the bindings the child has (made for the asking). */
  bindings(): Bindings {
    return (this.child_() as FastifyBaseLogger & { bindings(): Bindings }).bindings();
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.child_().child(bindings, options);
  }

  private write(level: Level, args: unknown[]): void {
    // Once made, the child decides (its level may have been changed); until then, the parent's
    // level is the child's.
    if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
    const child = this.child_() as unknown as Record<Level, (...args: unknown[]) => void>;
    child[level](...args);
  }
}

/**
 * Fastify's `childLoggerFactory`: a {@link DeferredChildLogger} for each request, or a child made
 * at once when the route gives options of its own (a log level or serializers).
 */
export function deferredChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (typeof (logger as Partial<LevelAwareLogger>).isLevelEnabled !== 'function' || Object.keys(options).length > 0) {
    return logger.child(bindings, options);
  }
  return new DeferredChildLogger(logger as LevelAwareLogger, bindings);
}

/** Levels at which Fastify logs every request (twice), so every request's child is made anyway. */
const LOGS_EVERY_REQUEST = new Set(['trace', 'debug', 'info']);

/**
 * The `childLoggerFactory` for an app logging at `level`: {@link deferredChildLoggerFactory} where
 * it saves the child, Fastify's own (undefined) where every request's child is made anyway.
 */
export function childLoggerFactoryFor(level: string): typeof deferredChildLoggerFactory | undefined {
  return LOGS_EVERY_REQUEST.has(level) ? undefined : deferredChildLoggerFactory;
}
