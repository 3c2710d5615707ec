// pyLiteralEval differential-tested against Python itself: every case goes through
// `ast.literal_eval` in Pyodide (CPython in WebAssembly, the sandbox's; loaded once, in a child
// process) and through pyLiteralEval, which must agree: the same value, or both refuse.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { pyLiteralEval } from './py-literal';

// Python's side of a case, as JSON: the value (tuples as lists, a set as {"$set": members},
// dict keys as json.dumps writes them, inf/nan tagged), a refusal, or a value JSON cannot hold.
const PYTHON = String.raw`
import ast, json, math

class Unrepresentable(Exception):
    pass

def num(v):
    if isinstance(v, int):
        try:
            v = float(v)
        except OverflowError:
            v = math.inf if v > 0 else -math.inf
    if math.isnan(v):
        return {"$float": "nan"}
    if math.isinf(v):
        return {"$float": "inf" if v > 0 else "-inf"}
    return v

def key(k):
    if isinstance(k, str):
        return k
    if k is None or isinstance(k, (bool, int, float)):
        return json.dumps(k)
    raise Unrepresentable(type(k).__name__ + " key")

def conv(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, float)):
        return num(v)
    if isinstance(v, (list, tuple)):
        return [conv(x) for x in v]
    if isinstance(v, dict):
        return {key(k): conv(x) for k, x in v.items()}
    if isinstance(v, (set, frozenset)):
        return {"$set": [conv(x) for x in v]}
    raise Unrepresentable(type(v).__name__)

def run(cases):
    out = []
    for text in json.loads(cases):
        try:
            value = ast.literal_eval(text)
        except Exception as e:
            out.append({"refused": type(e).__name__ + ": " + str(e)})
            continue
        try:
            out.append({"value": conv(value)})
        except Unrepresentable as e:
            out.append({"unrepresentable": str(e)})
    return json.dumps(out)
`;

// The child: loads Pyodide, answers the JSON array of cases on stdin with their outcomes.
const CHILD = `
const { loadPyodide } = require(process.env.PYODIDE_DIR + '/pyodide.js');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  loadPyodide({ indexURL: process.env.PYODIDE_DIR + '/', stdout: () => {}, stderr: () => {} }).then((py) => {
    py.runPython(process.env.PYTHON_SOURCE);
    process.stdout.write(py.globals.get('run')(input));
  });
});
`;

type PyOutcome = { value: unknown } | { refused: string } | { unrepresentable: string };

function literalEvalInPython(cases: readonly string[]): Promise<PyOutcome[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD], {
      env: { ...process.env, PYODIDE_DIR: dirname(require.resolve('pyodide')), PYTHON_SOURCE: PYTHON },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as PyOutcome[]) : reject(new Error(`Pyodide exited with ${code}`)),
    );
    child.stdin.end(JSON.stringify(cases));
  });
}

const NUL = '\0';

// What pyLiteralEval claims: strings (quotes, escapes, triple quotes, adjacent literals), numbers,
// True/False/None, lists, tuples, dicts, sets, nesting, whitespace, trailing commas; and refusing
// everything else.
const CASES: Record<string, string[]> = {
  strings: [
    `'hello'`,
    `"hello"`,
    `''`,
    `""`,
    `'it\\'s'`,
    `"say \\"hi\\""`,
    `'mixed "quotes"'`,
    `"mixed 'quotes'"`,
    `'a\\nb\\tc\\rd'`,
    `'back\\\\slash'`,
    `'\\x41\\u00e9'`,
    `'\\U0001F600'`,
    `'\\a\\b\\f\\v'`,
    `'\\0'`,
    `'\\101\\60\\0012'`,
    `'\\q\\d'`,
    `'line\\\ncontinued'`,
    `'é ü 中文 😀'`,
    `'''it's "triple"'''`,
    `"""multi\nline"""`,
    `'''a''b'''`,
    `'a' "b"`,
    `'a'  'b'\t'c'`,
    `('a'\n 'b')`,
    `r'\\n'`,
    `r'a\\'b'`,
    `R"\\d+"`,
    `u'x' r'\\y' 'z'`,
    `U"up"`,
    `'\\777'`,
    `u'unicode'`,
    `b'bytes'`,
    `'tab\there'`,
    `'nul${NUL}inside'`,
  ],
  numbers: [
    `0`,
    `42`,
    `-7`,
    `+7`,
    `- 7`,
    `-0`,
    `-0.0`,
    `3.14`,
    `-0.5`,
    `.5`,
    `5.`,
    `1e10`,
    `1E-3`,
    `-2.5e+3`,
    `1_000_000`,
    `1_000.000_1`,
    `0.000001`,
    `1e400`,
    `-1e400`,
    `12345678901234567890`,
    `9007199254740993`,
    `00`,
    `007.5`,
    `0e0`,
    `0x1F`,
    `0o17`,
    `0b101`,
    `-0x1F`,
    `0XfF_0`,
    `[- 1, + 2.5]`,
    `0_0`,
    `1j`,
    `1+2j`,
  ],
  constants: [`True`, `False`, `None`, ` True `, `[True, False, None]`],
  containers: [
    `[]`,
    `[1, 2, 3]`,
    `[1, 'a', None, True, 2.5]`,
    `()`,
    `(1,)`,
    `(1)`,
    `(1, 2)`,
    `((1))`,
    `((1,),)`,
    `{}`,
    `{'a': 1, 'b': [1, 2]}`,
    `{1: 'one', 2.5: 'x'}`,
    `{True: 1, None: 2}`,
    `{'a': 1, 'a': 2}`,
    `{"k": {"n": (1, [2, {"m": None}])}}`,
    `[[[]]]`,
    `{1, 2, 3}`,
    `{3, 1, 1}`,
    `{'x'}`,
    `{(1, 2)}`,
    `[{'a': (1, 2)}, ({'b': []},)]`,
  ],
  whitespace: [
    `  [ 1 ,  2 ]  `,
    `[\n  1,\n  2,\n]`,
    `\t1`,
    `{ 'a' :\n 1 }`,
    `1\n`,
    `( 1 , )`,
    `{\r\n'a': 1\r\n}`,
    `1 # trailing comment`,
    `[1, # one\n 2]`,
  ],
  'trailing commas': [`[1, 2,]`, `(1, 2,)`, `{'a': 1,}`, `{1, 2,}`],
  malformed: [
    ``,
    ` `,
    `[1, 2`,
    `[1,, 2]`,
    `[,]`,
    `(,)`,
    `{,}`,
    `{'a': 1,,}`,
    `{'a' 1}`,
    `{'a':}`,
    `{:1}`,
    `'unterminated`,
    `'''unterminated''`,
    `'a\nb'`,
    `1 2`,
    `[1] [2]`,
    `'a' 1`,
    `{'a': 1} x`,
    `)`,
    `]`,
    `}`,
    `true`,
    `none`,
    `TRUE`,
    `Truex`,
    `None.x`,
    `--1`,
    `-True`,
    `1 + 2`,
    `1..2`,
    `1.2.3`,
    `.`,
    `1.5e`,
    `1e`,
    `01`,
    `0123`,
    `1__0`,
    `1_`,
    `_1`,
    `inf`,
    `nan`,
    `...`,
    `a`,
    `os.system("x")`,
    `__import__('os')`,
    `f'x'`,
    `[*a]`,
    `{**a}`,
    `not True`,
    `lambda: 1`,
    `1 if True else 2`,
    `'\\xZZ'`,
    `'\\u12'`,
    `'\\x4'`,
    `{[1]: 2}`,
    `{{}: 2}`,
    `{(1, 2): 3}`,
    `{[1]}`,
    `{(1, [2])}`,
    `r'\\'`,
    `'\\U00110000'`,
    `0x`,
    `0b2`,
    `01_2`,
    `1e5x`,
    `# only a comment`,
  ],
};

/**
 * Where pyLiteralEval deliberately differs from Python, and why. Each must still differ (a fix
 * moves it out of this list).
 */
const EXPECTED_DIFFERENCES: Record<string, string> = {
  [`'\\N{BULLET}'`]: 'a named escape needs the Unicode name table, which it does not carry: it refuses',
  [`'a'\n'b'`]:
    'a newline is whitespace anywhere to it; Python ends the expression at a newline outside brackets',
};

type JsOutcome = { value: unknown } | { refused: string };

function pyLiteralOutcome(text: string): JsOutcome {
  try {
    return { value: pyLiteralEval(text) };
  } catch (err) {
    // Anything but a SyntaxError (a TypeError, a stack overflow) is a bug, not a refusal.
    if (!(err instanceof SyntaxError)) {
      throw err;
    }
    return { refused: err.message };
  }
}

/** JSON's view of a number: -0 is 0, and inf/nan are tagged as Python's side tags them. */
function canonical(v: unknown): unknown {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) {
      return { $float: 'nan' };
    }
    if (!Number.isFinite(v)) {
      return { $float: v > 0 ? 'inf' : '-inf' };
    }
    return v === 0 ? 0 : v;
  }
  if (Array.isArray(v)) {
    return v.map(canonical);
  }
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(x)]));
  }
  return v;
}

const isSet = (v: unknown): v is { $set: unknown[] } => v !== null && typeof v === 'object' && '$set' in v;
const members = (items: unknown[]): string[] => [...new Set(items.map((i) => JSON.stringify(i)))].sort();

/** Python's value and pyLiteralEval's agree (a set: the same members, in any order). */
function sameValue(python: unknown, js: unknown): boolean {
  if (isSet(python)) {
    return Array.isArray(js) && JSON.stringify(members(python.$set)) === JSON.stringify(members(js));
  }
  if (Array.isArray(python)) {
    return Array.isArray(js) && python.length === js.length && python.every((p, i) => sameValue(p, js[i]));
  }
  if (python !== null && typeof python === 'object') {
    if (js === null || typeof js !== 'object' || Array.isArray(js)) {
      return false;
    }
    const keys = Object.keys(python);
    return (
      keys.length === Object.keys(js).length &&
      keys.every(
        (k) => Object.hasOwn(js, k) && sameValue((python as never)[k], (js as Record<string, unknown>)[k]),
      )
    );
  }
  return Object.is(python, js);
}

/** Whether both sides agree: the same value, or both refuse (a value JSON cannot hold included). */
function agree(python: PyOutcome, js: JsOutcome): boolean {
  if ('value' in python && 'value' in js) {
    return sameValue(canonical(python.value), canonical(js.value));
  }
  return !('value' in python) && !('value' in js);
}

describe(`${pyLiteralEval.name} against Python's ast.literal_eval`, () => {
  const all = [...Object.values(CASES).flat(), ...Object.keys(EXPECTED_DIFFERENCES)];
  const python = new Map<string, PyOutcome>();

  beforeAll(async () => {
    const outcomes = await literalEvalInPython(all);
    all.forEach((text, i) => python.set(text, outcomes[i]));
  }, 180_000);

  describe.each(Object.entries(CASES))('%s', (_, cases) => {
    it.each(cases.map((c) => [JSON.stringify(c), c]))('%s', (_label, text) => {
      const js = pyLiteralOutcome(text);
      const py = python.get(text)!;
      expect({ text, python: py, pyLiteral: js, agree: agree(py, js) }).toMatchObject({ agree: true });
    });
  });

  it.each(Object.entries(EXPECTED_DIFFERENCES))('differs on %j by design: %s', (text) => {
    expect(agree(python.get(text)!, pyLiteralOutcome(text))).toBe(false);
  });

  it('covers each expected difference once', () => {
    const listed = Object.values(CASES).flat();
    expect(Object.keys(EXPECTED_DIFFERENCES).filter((t) => listed.includes(t))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });
});
