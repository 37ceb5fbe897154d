// The one range of dates the service accepts anywhere: 1970-01-01 to
// 9999-12-31, UTC. Outside it JavaScript, PostgreSQL and ISO 8601 disagree (year 0, five-digit
// years, a +14:00 offset that moves 0001-01-01 into year 0), and a date there can only be a mistake.
export const MIN_DATE = new Date('1970-01-01T00:00:00.000Z');
export const MAX_DATE = new Date('9999-12-31T23:59:59.999Z');

export const DATE_RANGE_TEXT = 'between 1970-01-01 and 9999-12-31';

export function inDateRange(date: Date): boolean {
  const time = date.getTime();
  return time >= MIN_DATE.getTime() && time <= MAX_DATE.getTime();
}
