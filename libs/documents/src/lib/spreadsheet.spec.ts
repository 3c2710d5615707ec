import ExcelJS from 'exceljs';
import { SpreadsheetError, readSpreadsheet, sheetName, writeCsv, writeXlsx } from './spreadsheet';

async function workbook(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const s = book.addWorksheet(name);
    rows.forEach((r) => s.addRow(r));
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

describe('readSpreadsheet', () => {
  it('reads every sheet with the first non-blank row as header, pandas names for empty and repeated ones', async () => {
    const book = new ExcelJS.Workbook();
    const s = book.addWorksheet('Sales');
    s.addRow([]);
    s.addRow(['region', null, 'region', 'when']);
    s.addRow(['north', 3, 'n', new Date(Date.UTC(2024, 0, 31, 8, 5, 0))]);
    s.addRow([]);
    s.addRow([{ richText: [{ text: 'so' }, { text: 'uth' }] }, { formula: '1+1', result: 2 }, null, null]);
    book.addWorksheet('Empty');
    const sheets = await readSpreadsheet(Buffer.from(await book.xlsx.writeBuffer()), 'q1.xlsx');
    expect(Object.keys(sheets)).toEqual(['Sales', 'Empty']);
    expect(sheets['Sales']).toEqual({
      columns: ['region', 'Unnamed: 1', 'region.1', 'when'],
      rows: [
        ['north', 3, 'n', '2024-01-31 08:05:00'],
        ['south', 2, null, null],
      ],
    });
    expect(sheets['Empty']).toEqual({ columns: [], rows: [] });
  });

  it('selects the first sheet, or named ones (names it lacks left out)', async () => {
    const bytes = await workbook({ A: [['x'], [1]], B: [['y'], [2]], C: [['z'], [3]] });
    expect(Object.keys(await readSpreadsheet(bytes, 'f.xlsx', 'first'))).toEqual(['A']);
    expect(Object.keys(await readSpreadsheet(bytes, 'f.xlsx', 'C, nope ,A'))).toEqual(['C', 'A']);
  });

  it('reads a CSV as Sheet1 with pandas column typing', async () => {
    const csv = Buffer.from('\ufeffname,qty,price,ok,code\n"a, b",1,2.5,True,007\nc,,1e3,false,x\n');
    expect(await readSpreadsheet(csv, 'data.CSV')).toEqual({
      Sheet1: {
        columns: ['name', 'qty', 'price', 'ok', 'code'],
        rows: [
          ['a, b', 1, 2.5, true, '007'],
          ['c', null, 1000, false, 'x'],
        ],
      },
    });
  });

  it('refuses a file that is not what its name says', async () => {
    await expect(readSpreadsheet(Buffer.from('not a zip'), 'x.xlsx')).rejects.toThrow(SpreadsheetError);
    await expect(readSpreadsheet(Buffer.from('a,"b\n1,2'), 'x.csv')).rejects.toThrow(
      'not a readable CSV file',
    );
  });
});

describe('writeXlsx / writeCsv', () => {
  it('writes a workbook that reads back the same, sheet names made valid and unique', async () => {
    const bytes = await writeXlsx({
      'a/b': {
        columns: ['k', 'v'],
        rows: [
          ['x', 1],
          ['y', null],
        ],
      },
      'a\\b': { columns: ['k'], rows: [[true]] },
    });
    const back = await readSpreadsheet(bytes, 'out.xlsx');
    expect(back).toEqual({
      a_b: {
        columns: ['k', 'v'],
        rows: [
          ['x', 1],
          ['y', null],
        ],
      },
      'a_b (1)': { columns: ['k'], rows: [[true]] },
    });
  });

  it('names sheets as Excel allows', () => {
    expect(sheetName('x'.repeat(40))).toHaveLength(31);
    expect(sheetName('a:b*c?[d]')).toBe('a_b_c__d_');
    expect(sheetName('')).toBe('Sheet');
  });

  it('writes CSV as pandas to_csv(index=False)', () => {
    expect(
      writeCsv({
        columns: ['a', 'b'],
        rows: [
          ['x,y', 1],
          ['say "hi"', null],
          [true, 2.5],
        ],
      }).toString(),
    ).toBe('a,b\n"x,y",1\n"say ""hi""",\nTrue,2.5\n');
  });
});
