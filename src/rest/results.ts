// What a REST route answered, for the response hooks that need it (the paging links): they read
// it here instead of parsing the JSON body back (a second JSON.parse of every list page).
// Keyed by the request, so it lives as long as the request does.
const answered = new WeakMap<Request, unknown>();

export function recordRestResult(request: Request, data: unknown): void {
  answered.set(request, data);
}

/** The route's answer when this request ran through the REST gate; undefined otherwise (a cached response, say). */
export function restResultOf(request: Request): unknown {
  return answered.get(request);
}
