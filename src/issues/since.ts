import { z } from 'zod';
import { badRequest } from '../errors.js';

const date = z.iso.date();
const dateTime = z.iso.datetime({ offset: true });

/** `since` is a calendar date (midnight UTC) or an ISO 8601 date-time; anything else is a 400. */
export function parseSince(value: string | null | undefined, field = 'since'): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (date.safeParse(text).success) return new Date(`${text}T00:00:00.000Z`);
  if (dateTime.safeParse(text).success) return new Date(text);
  throw badRequest(`${field} must be an ISO 8601 date (2025-01-31) or date-time (2025-01-31T12:00:00Z)`);
}
