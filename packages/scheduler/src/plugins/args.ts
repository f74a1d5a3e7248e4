/**
 * Errors of plugin arguments (`args:` in the scheduler configuration file). A factory throws
 * ArgsError with one message per problem, each starting with the field inside `args`
 * (`topologyKey: Invalid value: 3: must be a string`); the configuration loader prefixes the path of `args`.
 */

/** Invalid plugin arguments; `problems` are `field: message` lines. */
export class ArgsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'ArgsError';
  }
}

/**
 * Rejects any `args` for a plugin that takes none.
 * @throws ArgsError listing each unexpected field
 */
export function noArgs(args: Record<string, unknown> | undefined): void {
  const keys = Object.keys(args ?? {});
  if (keys.length) throw new ArgsError(keys.map((k) => `${k}: Unknown field (this plugin takes no args)`));
}
