// A JSON body of about `bytes` bytes shaped like an Airtable record listing (records with
// fields, and the next page's offset): the large answer the result-size measurements use.

/**
 * @param {number} bytes
 * @returns {string}
 */
export function bigBody(bytes) {
  /** @type {object[]} */
  const records = [];
  let size = 40;
  for (let i = 0; size < bytes; i += 1) {
    const record = {
      id: `rec${String(i).padStart(14, '0')}`,
      createdTime: '2026-01-01T00:00:00.000Z',
      fields: {
        Name: `Row ${i}`,
        Status: i % 3 ? 'Done' : 'Todo',
        Notes: 'Lorem ipsum dolor sit amet. '.repeat(6),
      },
    };
    records.push(record);
    size += JSON.stringify(record).length + 1;
  }
  return JSON.stringify({ records, offset: `itr${records.length}/next` });
}
