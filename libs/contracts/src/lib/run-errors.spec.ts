import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  RUN_ERRORS,
  type RunError,
  type RunErrorCodes,
  isRunErrorCode,
  runErrorTable,
  uncheckedRunErrorCode,
} from './run-errors';

const API_MD = join(__dirname, '../../../../docs/api.md');
const START = '<!-- run-errors: generated from RUN_ERRORS -->';
const END = '<!-- /run-errors -->';

/** The table between the markers of docs/api.md's "Run error codes" section. */
function documentedTable(): string {
  const doc = readFileSync(API_MD, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) {
    throw new Error(`docs/api.md lacks the ${START} … ${END} markers`);
  }
  return doc.slice(start + START.length, end).trim();
}

describe('run error catalogue', () => {
  it('is the table docs/api.md shows (regenerate it with runErrorTable() on a change)', () => {
    expect(documentedTable()).toBe(runErrorTable());
  });

  it('renders one row per code, in catalogue order', () => {
    const rows = runErrorTable().split('\n').slice(2);
    expect(rows.map((r) => /^\| `([a-z0-9_]+)` \|/.exec(r)?.[1])).toEqual(Object.keys(RUN_ERRORS));
    expect(rows[0]).toBe(
      '| `unknown_node` | run-orchestrator | no | an action asked for a node that no service registered |',
    );
  });

  it('has snake_case codes and table-safe texts', () => {
    for (const [code, info] of Object.entries(RUN_ERRORS)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(info.description.length).toBeGreaterThan(0);
      expect(`${info.description}${info.raisedBy}`).not.toMatch(/[|\n]/);
    }
  });

  it('tells catalogue codes from others, and passes an unknown code through unchanged', () => {
    expect(isRunErrorCode('task_timeout')).toBe(true);
    expect(isRunErrorCode('from_a_newer_service')).toBe(false);
    expect(isRunErrorCode('toString')).toBe(false);
    expect(uncheckedRunErrorCode('from_a_newer_service')).toBe('from_a_newer_service');
  });

  it('refuses, at compile time (tsc checks the expect-errors), a code the catalogue lacks', () => {
    // @ts-expect-error a string literal is no catalogue code and no unchecked one
    const produced: RunError = { code: 'no_such_code', message: 'm' };
    // @ts-expect-error an error class's code union must be part of the catalogue
    const union: RunErrorCodes<'sql_timeout' | 'no_such_code'> = 'sql_timeout';
    const received: RunError = { code: uncheckedRunErrorCode('no_such_code'), message: 'm' };
    expect([isRunErrorCode(produced.code), isRunErrorCode(union), isRunErrorCode(received.code)]).toEqual([
      false,
      true,
      false,
    ]);
  });
});
