// The data's licence (CC BY 4.0), in one place: named by STIX, Atom, OpenAPI and every API
// response's Link header. An issue's sourceUrl is its attribution.
export const DATA_LICENSE = { name: 'CC-BY-4.0', url: 'https://creativecommons.org/licenses/by/4.0/' } as const;
