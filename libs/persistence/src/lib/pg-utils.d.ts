// pg ships no types for its lib/utils module; @types/pg does not declare it.
declare module 'pg/lib/utils' {
  /** How pg turns a bind parameter into its text (null stays null; Buffers stay Buffers). */
  export function prepareValue(value: unknown): string | Buffer | null;
}
