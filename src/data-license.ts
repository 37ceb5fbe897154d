// The data's licence (CC BY 4.0), in one place: named by STIX, Atom, OpenAPI and every API
// response's Link header. An issue's sourceUrl is its attribution. It holds because everything
// republished is CC0, CC BY 4.0, Apache-2.0 or a fact (data/sources/README.md); feeds under CC BY-SA
// contribute titles, links and dates only (their sources set `"summaries": false`).
export const DATA_LICENSE = { name: 'CC-BY-4.0', url: 'https://creativecommons.org/licenses/by/4.0/' } as const;
