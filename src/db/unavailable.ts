// Whether an error means the database is out of reach (down, refusing connections, restarting,
// the connection cut, a statement cancelled by its timeout) rather than a fault in the request or
// the code. Clients get 503 with Retry-After for these, as GitHub and OSV's API do when a backend
// is down, instead of a 500 that reads as a bug.
import { GraphQLError } from 'graphql';
import { appError } from '../errors.js';

/**
 * Prisma's codes for an unreachable server, a closed connection, pool and socket time-outs, and a
 * transaction that could not start in time (P2028: every pooled connection busy) or outlived its
 * time: the database is too busy to answer now, which a client should retry like an outage.
 */
const prismaCodes = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2037']);
/** Driver adapter error kinds with the same meaning. */
const adapterKinds = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'SocketTimeout',
  'ConnectionClosed',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);
/**
 * SQLSTATEs: connection exceptions (08), shutdown or restart (57P01 to 57P03), too many
 * connections (53300), a statement cancelled by statement_timeout (57014).
 */
const unavailableState = (code: string) => code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '53300' || code === '57014';
/** Node socket errors and the drivers' own words for a lost connection or a closed database. */
const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const lostConnection = /Connection terminated|timeout exceeded when trying to connect|PGlite is closed|Client has encountered a connection error/i;

interface Described {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  severity?: unknown;
  message?: unknown;
  meta?: { driverAdapterError?: { cause?: Described } };
  cause?: unknown;
  originalError?: unknown;
}

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as Described;
  if (typeof e.code === 'string' && (prismaCodes.has(e.code) || networkCodes.has(e.code))) return true;
  if (typeof e.kind === 'string' && adapterKinds.has(e.kind)) return true;
  // A PostgreSQL error: an adapter's (kind 'postgres'), or a driver's own (node-postgres' and
  // PGlite's DatabaseError, which carry the server's severity), as bulk writes and driver reads see them.
  const fromServer = e.kind === 'postgres' || typeof e.severity === 'string';
  const state = typeof e.originalCode === 'string' ? e.originalCode : fromServer && typeof e.code === 'string' ? e.code : undefined;
  // A FATAL error ends the session: the server refused or dropped the connection.
  if ((state && unavailableState(state)) || (fromServer && e.severity === 'FATAL')) return true;
  if (typeof e.message === 'string' && lostConnection.test(e.message)) return true;
  return [e.meta?.driverAdapterError?.cause, e.cause, e.originalError].some((next) => isDatabaseUnavailable(next, depth + 1));
}

/** Seconds a client is asked to wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

export const UNAVAILABLE_MESSAGE = `The database is unavailable; try again in ${RETRY_AFTER_SECONDS} seconds`;

/** The expected error for an outage: 503 with Retry-After, extensions.code SERVICE_UNAVAILABLE. */
export function serviceUnavailable(message = UNAVAILABLE_MESSAGE, extensions: Record<string, unknown> = {}): GraphQLError {
  const error = appError('SERVICE_UNAVAILABLE', message);
  Object.assign(error.extensions, extensions, { http: { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } });
  return error;
}
