// A collection's objects in TAXII order (TAXII 2.1, 5.4). The order is fixed once and for all, so
// a client walking `next` never sees an object twice or misses one while issues keep arriving:
// - first the service's own objects (the two markings and secwire's identity, which every object
//   references), added at the service epoch;
// - then issue by issue in (firstSeenAt, id) order, its date_added being firstSeenAt: the attack
//   patterns it names that no earlier issue of the collection named, then its own objects. So the
//   first page holds issues, and every attack pattern comes just before the first issue that
//   needs it, once. New issues are only ever seen later than every listed one, and only once they
//   have settled (config.taxiiSettleSeconds), so a slow ingest transaction cannot commit behind a
//   cursor.
// `next` is the position of the page's last object, not an offset, so inserts never shift it.
import { inDateRange } from '../dates.js';
import { badRequest } from '../errors.js';
import { isUuid } from '../params.js';
import type { DriverRead } from '../db/driver-read.js';
import { readAttackKeysSeenBefore, readIssuesBySeen } from '../issues/reads.js';
import { issueOwnObjects, referenceObjects, SERVICE_EPOCH, stixColumns, type StixIssue, type StixObject } from '../stix/bundle.js';
import type { Collection } from './collections.js';

export const TAXII_LIMIT = { defaultLimit: 100, maxLimit: 1000 };
const ISSUES_PER_QUERY = 100;

/** Where the last object of a page sits: the r-th service object, or the k-th object of an issue's group. */
type Position = { r: number } | { t: string; id: string; k: number };

export interface ObjectsQuery {
  addedAfter?: Date;
  limit: number;
  after?: Position;
  types?: string[];
  ids?: string[];
  /** Issues first seen after this are not listed yet. */
  settledBefore: Date;
}

const encodeNext = (position: Position) => Buffer.from(JSON.stringify(position)).toString('base64url');

export function decodeNext(next: string): Position {
  try {
    const value = JSON.parse(Buffer.from(next, 'base64url').toString('utf8')) as Record<string, unknown>;
    // Positions this server can have given: a reference object that exists, or an issue's object
    // at a stored date (a forged year 0 or negative index would reach SQL or index past the list).
    const position = (n: unknown, below = Number.MAX_SAFE_INTEGER) => Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) < below;
    if ('r' in value) {
      if (position(value.r, serviceObjects().length)) return { r: value.r as number };
    } else if (
      typeof value.t === 'string' &&
      !Number.isNaN(Date.parse(value.t)) &&
      inDateRange(new Date(value.t)) &&
      typeof value.id === 'string' &&
      isUuid(value.id) &&
      position(value.k)
    ) {
      return { t: value.t, id: value.id, k: value.k as number };
    }
  } catch {
    // falls through to the 400
  }
  throw badRequest('next is not a value this server gave');
}

/** The objects every other one references (markings, identity): the reference objects that are no attack pattern. */
const serviceObjects = () => [...referenceObjects().values()].filter((o) => o.type !== 'attack-pattern');

/** The attack patterns of the reference catalogue, by STIX id. */
let patternsById: Map<string, StixObject> | undefined;
const attackPatterns = () => (patternsById ??= new Map([...referenceObjects().values()].filter((o) => o.type === 'attack-pattern').map((o) => [o.id, o])));

/** The attack patterns an issue's own objects reference, in the order they name them. */
function patternsOf(own: StixObject[]): StixObject[] {
  const ids = own.flatMap((o) => [o.source_ref, ...((o.object_refs as unknown[] | undefined) ?? [])]);
  return [...new Set(ids)].flatMap((id) => attackPatterns().get(id as string) ?? []);
}

/** The STIX ids of the attack patterns named by the collection's settled issues before `before`. */
async function patternsNamed(read: DriverRead, collection: Collection, settledBefore: Date, before: { t: string; id: string } | { addedAfter: Date }) {
  const keys = await readAttackKeysSeenBefore(read, { where: collection.where, settledBefore, before });
  const reference = referenceObjects();
  return new Set(keys.flatMap((key) => reference.get(key)?.id ?? []));
}

export async function collectionObjects(read: DriverRead, collection: Collection, query: ObjectsQuery) {
  const wanted = (o: StixObject) => (!query.types || query.types.includes(o.type)) && (!query.ids || query.ids.includes(o.id));
  const found: { object: StixObject; dateAdded: Date; position: Position }[] = [];
  const full = () => found.length > query.limit;

  const after = query.after;
  const epoch = new Date(SERVICE_EPOCH);
  if (!(after && 'id' in after) && !(query.addedAfter && query.addedAfter >= epoch)) {
    const service = serviceObjects();
    const start = after && 'r' in after ? after.r + 1 : 0;
    for (let r = start; r < service.length && !full(); r++) {
      if (wanted(service[r]!)) found.push({ object: service[r]!, dateAdded: epoch, position: { r } });
    }
  }

  let cursor = after && 'id' in after ? after : undefined;
  // An issue's group holds the attack patterns no earlier issue named: those earlier ones' are known first.
  const earlier = cursor ?? (query.addedAfter ? { addedAfter: query.addedAfter } : undefined);
  const named = earlier ? await patternsNamed(read, collection, query.settledBefore, earlier) : new Set<string>();
  while (!full()) {
    const issues = await readIssuesBySeen<StixIssue>(read, stixColumns, {
      where: collection.where,
      settledBefore: query.settledBefore,
      addedAfter: query.addedAfter,
      from: cursor,
      limit: ISSUES_PER_QUERY,
    });
    for (const issue of issues) {
      const t = issue.firstSeenAt.toISOString();
      // The cursor's own issue continues after its last listed object.
      const from = cursor && cursor.id === issue.id && cursor.t === t ? cursor.k + 1 : 0;
      const own = issueOwnObjects(issue);
      const group = [...patternsOf(own).filter((p) => !named.has(p.id)), ...own];
      for (const p of patternsOf(own)) named.add(p.id);
      group.forEach((object, k) => {
        if (k >= from && wanted(object)) found.push({ object, dateAdded: issue.firstSeenAt, position: { t, id: issue.id, k } });
      });
      if (full()) break;
    }
    if (issues.length < ISSUES_PER_QUERY) break;
    const last = issues[issues.length - 1]!;
    cursor = { t: last.firstSeenAt.toISOString(), id: last.id, k: Number.MAX_SAFE_INTEGER };
  }

  const page = found.slice(0, query.limit);
  const more = found.length > query.limit;
  return {
    objects: page.map(({ object, dateAdded }) => ({ object, dateAdded })),
    more,
    ...(more ? { next: encodeNext(page[page.length - 1]!.position) } : {}),
  };
}
