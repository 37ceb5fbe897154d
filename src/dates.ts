// The one range of dates the service accepts anywhere: 1970-01-01 to
// 9999-12-31, UTC. Outside it JavaScript, PostgreSQL and ISO 8601 disagree (year 0, five-digit
// years, a +14:00 offset that moves 0001-01-01 into year 0), and a date there can only be a mistake.
import { z } from 'zod';
import { badRequest } from './errors.js';

export const MIN_DATE = new Date('1970-01-01T00:00:00.000Z');
export const MAX_DATE = new Date('9999-12-31T23:59:59.999Z');

export const DATE_RANGE_TEXT = 'between 1970-01-01 and 9999-12-31';

const isoDate = z.iso.date();

/** True for a real calendar date written YYYY-MM-DD (no 31 February). */
export const isCalendarDate = (value: string) => isoDate.safeParse(value).success;

/** A `date` argument: a calendar date in the service's range, or a 400 (PostgreSQL has no year 0). */
export function calendarDate(value: string): string {
  if (!isCalendarDate(value)) throw badRequest('date must be a calendar date written YYYY-MM-DD');
  if (!inDateRange(new Date(`${value}T00:00:00.000Z`))) throw badRequest(`date must be ${DATE_RANGE_TEXT}`);
  return value;
}

export const utcDay = (date: Date) => date.toISOString().slice(0, 10);
export const yesterdayUtc = (now = new Date()) => utcDay(new Date(now.getTime() - 24 * 3600_000));

export function inDateRange(date: Date): boolean {
  const time = date.getTime();
  return time >= MIN_DATE.getTime() && time <= MAX_DATE.getTime();
}
