/**
 * Error handling shared by the controllers' writers.
 */

/**
 * A rejection handler that swallows the errors `pred` accepts (e.g. `isNotFound` for a delete,
 * `isAlreadyExists` for a create) and rethrows the rest.
 */
export const ignore =
  (pred: (e: unknown) => boolean) =>
  (e: unknown): void => {
    if (!pred(e)) throw e;
  };
